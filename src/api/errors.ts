// The one error mapper: every failure leaves the API through here, as the Shape A envelope
// or the Shape B envelope (docs/api-reference.md, "Errors").
import type { Context } from 'koa';
import { databaseUnreachable } from '../db/errors';
import { ApiError, isApiError } from '../domain/errors';
import type { RequestState } from './context';

export function errorBody(error: ApiError, state: Pick<RequestState, 'shape' | 'requestId'>, docsBaseUrl: string): Record<string, unknown> {
  const doc_url = `${docsBaseUrl}/docs#error-${error.code}`;
  if (state.shape === 'B') {
    const type = error.code === 'card_declined' ? 'card_error' : error.status >= 500 ? 'api_error' : 'invalid_request_error';
    return {
      error: {
        type,
        code: error.code,
        message: error.message,
        param: error.param ?? null,
        ...(error.declineCode ? { decline_code: error.declineCode } : {}),
        doc_url,
        request_id: state.requestId,
      },
    };
  }
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param !== undefined ? { param: error.param } : {}),
      doc_url,
      request_id: state.requestId,
    },
  };
}

/**
 * How long a client should wait before sending again an answer that says "not now" without a
 * delay of its own (CONTRACT 16): a key whose request is still running (its lease is renewed
 * while it runs, or runs out within IDEMPOTENCY_LEASE_MS when its process died), and every 503.
 */
export const DEFAULT_RETRY_AFTER_SECONDS = { idempotency_key_in_use: 1, unavailable: 1 } as const;

function defaultRetryAfter(status: number, code: string | undefined): number | null {
  if (code === 'idempotency_key_in_use') return DEFAULT_RETRY_AFTER_SECONDS.idempotency_key_in_use;
  return status === 503 ? DEFAULT_RETRY_AFTER_SECONDS.unavailable : null;
}

export function sendError(ctx: Context & { state: RequestState }, error: ApiError, docsBaseUrl: string): void {
  ctx.status = error.status;
  ctx.type = 'application/json';
  const retryAfter = error.retryAfterSeconds ?? defaultRetryAfter(error.status, error.code);
  if (retryAfter !== null) ctx.set('Retry-After', String(retryAfter));
  ctx.body = JSON.stringify(errorBody(error, ctx.state, docsBaseUrl));
}

/**
 * Outermost error boundary: client mistakes become catalogue errors, anything else a bare 500. It
 * is also the one place that gives every 503 a `Retry-After`, those a route answers itself (the
 * health check, the hosted page's retry form) included.
 */
export function errorMiddleware(docsBaseUrl: string) {
  return async (ctx: Context & { state: RequestState }, next: () => Promise<unknown>): Promise<void> => {
    try {
      await next();
    } catch (caught) {
      sendError(ctx, asApiError(ctx, caught), docsBaseUrl);
    }
    if (ctx.status === 503 && !ctx.response.get('Retry-After')) ctx.set('Retry-After', String(DEFAULT_RETRY_AFTER_SECONDS.unavailable));
  };
}

function asApiError(ctx: Context & { state: RequestState }, caught: unknown): ApiError {
  if (isApiError(caught)) return caught;
  // A database outage is temporary: 503 service_unavailable, retried with the same key.
  const unreachable = databaseUnreachable(caught);
  if (unreachable) {
    ctx.state.logger.warn({ code: unreachable }, 'database unreachable');
    return new ApiError('service_unavailable');
  }
  ctx.state.logger.error({ err: caught instanceof Error ? { type: caught.name, message: caught.message, stack: caught.stack } : String(caught) }, 'unhandled error');
  return new ApiError('internal_error');
}
