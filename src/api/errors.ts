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

export function sendError(ctx: Context & { state: RequestState }, error: ApiError, docsBaseUrl: string): void {
  ctx.status = error.status;
  ctx.type = 'application/json';
  if (error.retryAfterSeconds !== null) ctx.set('Retry-After', String(error.retryAfterSeconds));
  ctx.body = JSON.stringify(errorBody(error, ctx.state, docsBaseUrl));
}

/** Outermost error boundary: client mistakes become catalogue errors, anything else a bare 500. */
export function errorMiddleware(docsBaseUrl: string) {
  return async (ctx: Context & { state: RequestState }, next: () => Promise<unknown>): Promise<void> => {
    try {
      await next();
    } catch (caught) {
      if (isApiError(caught)) {
        sendError(ctx, caught, docsBaseUrl);
        return;
      }
      // A database outage is temporary: 503 service_unavailable, retried with the same key.
      const unreachable = databaseUnreachable(caught);
      if (unreachable) {
        ctx.state.logger.warn({ code: unreachable }, 'database unreachable');
        sendError(ctx, new ApiError('service_unavailable', { retryAfterSeconds: 1 }), docsBaseUrl);
        return;
      }
      ctx.state.logger.error({ err: caught instanceof Error ? { type: caught.name, message: caught.message, stack: caught.stack } : String(caught) }, 'unhandled error');
      sendError(ctx, new ApiError('internal_error'), docsBaseUrl);
    }
  };
}
