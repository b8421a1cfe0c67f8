// Operation failure codes (docs/api-reference.md, "Errors"): shared by Payment failure_code, Refund
// failure.code and Payout failure_code. They never carry raw provider details.
export const FAILURE_CODES = [
  'not_found', 'processor_error', 'processor_unavailable', 'generic_decline', 'do_not_honor',
  'issuer_declined', 'insufficient_funds', 'invalid_number', 'invalid_expiry', 'expired_card',
  'invalid_amount', 'invalid_currency', 'not_permitted', 'cardholder_limit', 'card_velocity_exceeded',
  'lost_card', 'stolen_card', 'suspect_fraud', 'fraud_filter', 'three_d_secure_failed',
  'three_d_secure_timeout', 'three_d_secure_not_supported', 'three_d_secure_error',
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];

const MESSAGES: Record<FailureCode, string> = {
  not_found: 'The referenced object was not found by the processor.',
  processor_error: 'The processor could not complete the operation.',
  processor_unavailable: 'The processor was unavailable and the operation could not be completed.',
  generic_decline: 'The card was declined.',
  do_not_honor: 'The card was declined by the issuer (do not honor).',
  issuer_declined: 'The issuer declined the operation.',
  insufficient_funds: 'The card has insufficient funds.',
  invalid_number: 'The card number is invalid.',
  invalid_expiry: 'The card expiry date is invalid.',
  expired_card: 'The card has expired.',
  invalid_amount: 'The amount is invalid for this card.',
  invalid_currency: 'The currency is not supported for this card.',
  not_permitted: 'The operation is not permitted for this card.',
  cardholder_limit: 'The cardholder limit was exceeded.',
  card_velocity_exceeded: 'The card has exceeded its velocity limit.',
  lost_card: 'The card was reported lost.',
  stolen_card: 'The card was reported stolen.',
  suspect_fraud: 'The operation was declined on suspicion of fraud.',
  fraud_filter: 'The operation was blocked by a fraud filter.',
  three_d_secure_failed: '3D Secure authentication failed.',
  three_d_secure_timeout: '3D Secure authentication timed out.',
  three_d_secure_not_supported: '3D Secure is not supported for this card.',
  three_d_secure_error: '3D Secure authentication could not be completed.',
};

export function isFailureCode(value: unknown): value is FailureCode {
  return typeof value === 'string' && (FAILURE_CODES as readonly string[]).includes(value);
}

export function failureMessage(code: FailureCode): string {
  return MESSAGES[code];
}
