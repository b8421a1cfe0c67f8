// The error catalogue (docs/api-reference.md, "Errors"; Shape B codes: docs/shape-b.md): one error
// type for the whole service; the API turns it into an envelope with one mapper.
export const ERROR_CATALOGUE = {
  actor_forbidden: { status: 403, message: 'This API key is restricted: it is not allowed to perform this operation.' },
  amount_exceeds_refundable: { status: 422, message: 'The amount exceeds the amount still refundable on this payment.' },
  currency_not_supported: { status: 422, message: 'This currency is not enabled for your account.' },
  idempotency_key_in_use: { status: 409, message: 'A request with this Idempotency-Key is still being processed; retry shortly with the same key.' },
  idempotency_key_reused: { status: 409, message: 'This Idempotency-Key was already used with a different request.' },
  idempotency_replay_unavailable: { status: 409, message: 'The answer saved for this Idempotency-Key held a webhook secret that has since been rotated away, so it is not replayed; rotate the secret to get a new one.' },
  internal_error: { status: 500, message: 'An unexpected error occurred; retry with the same Idempotency-Key.' },
  invalid_api_key: { status: 401, message: 'The API key is missing, malformed, invalid, expired or revoked.' },
  invalid_card: { status: 422, message: 'The destination card number is invalid.' },
  invalid_request: { status: 400, message: 'A path or query value is invalid.' },
  invalid_search_criteria: { status: 400, message: 'The filter, search, cursor or pagination parameters are invalid.' },
  merchant_not_provisioned: { status: 422, message: 'Your account is not provisioned for this operation.' },
  object_not_found: { status: 404, message: 'No such object.' },
  object_state_conflict: { status: 409, message: 'The object state conflicts with the provider update; contact support.' },
  parameter_invalid: { status: 400, message: 'A parameter is invalid.' },
  parameter_missing: { status: 400, message: 'A required header is missing.' },
  payment_acceptance_unavailable: { status: 403, message: 'Your account cannot currently accept payments.' },
  payment_not_refundable: { status: 422, message: 'Only SUCCEEDED payments can be refunded.' },
  payout_submission_unavailable: { status: 403, message: 'Your account cannot currently submit payouts.' },
  processing_error: { status: 502, message: 'The payment provider answer could not be validated; retry with the same Idempotency-Key.' },
  rate_limit_exceeded: { status: 429, message: 'Too many requests; retry after the Retry-After delay with the same Idempotency-Key.' },
  request_body_invalid: { status: 400, message: 'The request body could not be read as the expected schema.' },
  resource_not_found: { status: 404, message: 'No public route matches this method and path.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable; retry with backoff and the same Idempotency-Key.' },
  unsupported_card: { status: 422, message: 'The destination card is not eligible for payouts; only Visa and Mastercard are.' },
  // Shape B only (docs/shape-b.md).
  card_declined: { status: 402, message: 'The card was declined.' },
  charge_already_refunded: { status: 400, message: 'This payment has already been refunded.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ApiErrorOptions {
  message?: string;
  param?: string;
  retryAfterSeconds?: number | null;
  /** Shape B declines: the decline code shown next to `card_declined`. */
  declineCode?: string;
  /**
   * The HTTP transport's own statuses, whose meaning clients act on (docs/reliability.md): `408`
   * for a request that did not arrive in time, `431` for headers over the limit. Else the catalogue's.
   */
  status?: 408 | 431;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly retryAfterSeconds: number | null;
  readonly declineCode: string | undefined;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    super(options.message ?? ERROR_CATALOGUE[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? ERROR_CATALOGUE[code].status;
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
    this.declineCode = options.declineCode;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
