// Errors the client throws: an answer of the API that is not 2xx (`PaymentsApiError`), or no answer
// at all after the retries (`PaymentsConnectionError`, one of them, so one `instanceof` catches both).
import type { ErrorCode } from './types';

export interface PaymentsApiErrorFields {
  status: number;
  code: ErrorCode;
  message: string;
  param: string | null;
  requestId: string | null;
  docUrl: string | null;
  /** The `Idempotency-Key` the failed request was sent with: retry later with the same one. */
  idempotencyKey: string | null;
  /** Seconds the API asked to wait before a retry (`Retry-After`), when it did. */
  retryAfterSeconds: number | null;
}

export class PaymentsApiError extends Error implements PaymentsApiErrorFields {
  readonly status: number;
  /** The catalogue code to branch on (after the HTTP status); new codes may appear. */
  readonly code: ErrorCode;
  readonly param: string | null;
  readonly requestId: string | null;
  readonly docUrl: string | null;
  readonly idempotencyKey: string | null;
  readonly retryAfterSeconds: number | null;

  constructor(fields: PaymentsApiErrorFields, options?: { cause?: unknown }) {
    super(fields.message, options);
    this.name = 'PaymentsApiError';
    this.status = fields.status;
    this.code = fields.code;
    this.param = fields.param;
    this.requestId = fields.requestId;
    this.docUrl = fields.docUrl;
    this.idempotencyKey = fields.idempotencyKey;
    this.retryAfterSeconds = fields.retryAfterSeconds;
  }
}

/**
 * No answer came (refused or dropped connection, time-out) after every retry. The request may or
 * may not have been carried out: repeat it with the same `idempotencyKey` to find out safely.
 */
export class PaymentsConnectionError extends PaymentsApiError {
  constructor(message: string, idempotencyKey: string | null, cause: unknown) {
    super({ status: 0, code: 'connection_error', message, param: null, requestId: null, docUrl: null, idempotencyKey, retryAfterSeconds: null }, { cause });
    this.name = 'PaymentsConnectionError';
  }
}

/** A webhook whose signature, timestamp or body does not check out. */
export class WebhookSignatureError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookSignatureError';
  }
}
