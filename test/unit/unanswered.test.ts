// One shape for "the provider's answer proves nothing" (src/provider/types.ts): the API answers an
// unanswered create by its cause, with the same codes and Retry-After as the catalogue says.
import type { Unanswered, UnansweredCause } from '../../src/provider/types';
import { unansweredCreateError } from '../../src/services/payments';

const unanswered = (cause: UnansweredCause, mayHaveActed: boolean, retryAfterSeconds: number | null): Unanswered => ({ kind: 'unanswered', cause, mayHaveActed, retryAfterSeconds });

it.each([
  ['rate_limited', false, 2, 429, 'rate_limit_exceeded', 2],
  ['unavailable', false, 7, 503, 'service_unavailable', 7],
  ['not_sent', false, null, 503, 'service_unavailable', null],
  // The activity could not ask (a card missing from the vault, no live provider): the service is unavailable.
  ['call_failed', true, null, 503, 'service_unavailable', null],
  // No answer that could be validated: 502, and a Retry-After that came with it is not passed on.
  ['timeout', true, null, 502, 'processing_error', null],
  ['connection_lost', true, null, 502, 'processing_error', null],
  ['invalid_answer', true, 5, 502, 'processing_error', null],
] as const)('%s (may have acted: %s, Retry-After: %s)', (cause, mayHaveActed, retryAfter, status, code, expectedRetryAfter) => {
  const error = unansweredCreateError(unanswered(cause, mayHaveActed, retryAfter));
  expect({ status: error.status, code: error.code, retryAfterSeconds: error.retryAfterSeconds }).toEqual({ status, code, retryAfterSeconds: expectedRetryAfter });
});
