// The one way a request is sent: authentication, the pinned `Service-Version`, an `Idempotency-Key`
// on every POST (the caller's, or one generated per call and kept across its retries), and the
// retry rules of the API (its interface, section 7.2): a network error, `409
// idempotency_key_in_use`, `429`, `500`, `502` and `503` are retried with the same key, after
// `Retry-After` when the answer has one and an exponential backoff otherwise; no other 4xx ever is.
import { randomUUID } from 'node:crypto';
import { PaymentsApiError, PaymentsConnectionError } from './error';
import type { ErrorCode } from './types';

export const SDK_VERSION = '1.0.0';

export interface ClientSettings {
  apiKey: string;
  baseUrl: string;
  version: string;
  maxRetries: number;
  timeoutMs: number;
  fetch: typeof fetch;
}

/** What the API said about a successful request, besides the body. */
export interface ResponseInfo {
  status: number;
  requestId: string | null;
  /** The `Idempotency-Key` the request was sent with (POST only). */
  idempotencyKey: string | null;
  /** True when the API answered with the saved answer of an earlier request with the same key. */
  replayed: boolean;
  /** Requests sent for this call: 1, plus one per retry. */
  attempts: number;
  /** The answer's headers, names in lowercase. */
  headers: Record<string, string>;
}

/** An answer body, with `lastResponse` (not enumerable, so it stays out of `JSON.stringify`). */
export type ApiResponse<T> = T & { readonly lastResponse: ResponseInfo };

export type QueryValue = string | number | boolean | ReadonlyArray<string | number> | undefined;

export interface ApiRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  idempotencyKey?: string;
}

const RETRYABLE_STATUSES = new Set([429, 500, 502, 503]);
const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 5_000;
/** A longer `Retry-After` is not waited for: the error is thrown with `retryAfterSeconds`. */
const MAX_RETRY_AFTER_SECONDS = 60;

function retryable(status: number, code: string | undefined): boolean {
  return RETRYABLE_STATUSES.has(status) || (status === 409 && code === 'idempotency_key_in_use');
}

/** Exponential, with jitter so that many clients do not retry in step: 0.5 s, 1 s, 2 s ... at most 5 s. */
function backoffMs(retry: number): number {
  const ceiling = Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** retry);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get('retry-after');
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function queryString(query: Record<string, QueryValue> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    // Repeatable filters: `status=A&status=B`.
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

function apiErrorOf(status: number, headers: Headers, text: string, idempotencyKey: string | null): PaymentsApiError {
  let envelope: { error?: { code?: string; message?: string; param?: string | null; doc_url?: string; request_id?: string } } | null = null;
  try {
    envelope = JSON.parse(text);
  } catch {
    envelope = null;
  }
  const error = envelope?.error;
  return new PaymentsApiError({
    status,
    // An answer without the envelope (a proxy's 502 page): branch on the status.
    code: (error?.code ?? `http_${status}`) as ErrorCode,
    message: error?.message ?? `The API answered ${status} without an error body.`,
    param: error?.param ?? null,
    requestId: error?.request_id ?? headers.get('request-id'),
    docUrl: error?.doc_url ?? null,
    idempotencyKey,
    retryAfterSeconds: retryAfterSeconds(headers),
  });
}

export class HttpClient {
  constructor(readonly settings: ClientSettings) {}

  async request<T>(request: ApiRequest): Promise<ApiResponse<T>> {
    const { apiKey, baseUrl, version, maxRetries, timeoutMs } = this.settings;
    const idempotencyKey = request.method === 'POST' ? request.idempotencyKey ?? randomUUID() : null;
    const url = `${baseUrl.replace(/\/+$/, '')}${request.path}${queryString(request.query)}`;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${apiKey}`,
      'Service-Version': version,
      Accept: 'application/json',
      'User-Agent': `card-payments-sdk-node/${SDK_VERSION}`,
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
      ...(request.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    };
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);

    for (let attempt = 1; ; attempt += 1) {
      const retriesLeft = attempt <= maxRetries;
      let status: number;
      let responseHeaders: Headers;
      let text: string;
      try {
        const response = await this.settings.fetch(url, { method: request.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
        status = response.status;
        responseHeaders = response.headers;
        // A connection dropped in the middle of the body is a network error too.
        text = await response.text();
      } catch (cause) {
        if (retriesLeft) {
          await sleep(backoffMs(attempt - 1));
          continue;
        }
        const reason = cause instanceof Error ? cause.message : String(cause);
        throw new PaymentsConnectionError(`${request.method} ${request.path}: no answer after ${attempt} attempt(s) (${reason}).`, idempotencyKey, cause);
      }
      if (status >= 200 && status < 300) {
        let parsed: T;
        try {
          parsed = (text === '' ? {} : JSON.parse(text)) as T;
        } catch (cause) {
          // Not the service's answer (a proxy's page, say): nothing to retry safely on.
          throw new PaymentsApiError({
            status, code: 'invalid_response', message: `${request.method} ${request.path}: the ${status} answer is not JSON.`, param: null,
            requestId: responseHeaders.get('request-id'), docUrl: null, idempotencyKey, retryAfterSeconds: null,
          }, { cause });
        }
        const info: ResponseInfo = {
          status,
          requestId: responseHeaders.get('request-id'),
          idempotencyKey,
          replayed: responseHeaders.get('idempotent-replayed') === 'true',
          attempts: attempt,
          headers: Object.fromEntries(responseHeaders),
        };
        Object.defineProperty(parsed, 'lastResponse', { value: info, enumerable: false });
        return parsed as ApiResponse<T>;
      }
      const error = apiErrorOf(status, responseHeaders, text, idempotencyKey);
      if (!retriesLeft || !retryable(status, error.code)) throw error;
      const wait = error.retryAfterSeconds;
      if (wait !== null && wait > MAX_RETRY_AFTER_SECONDS) throw error;
      await sleep(wait !== null ? wait * 1000 : backoffMs(attempt - 1));
    }
  }
}
