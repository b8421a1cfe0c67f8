// The sandbox test-card table (docs/quickstart.md, "Test cards"), turned into behaviour tags.
// Records keep the tag, the brand and the last four digits; the full number is read once here and
// never stored.
import type { FailureCode } from '../../domain/failure-codes';

export type PaymentBehaviour =
  | { kind: 'approve' }
  | { kind: 'decline'; code: FailureCode }
  | { kind: 'challenge' }
  | { kind: 'device_then_challenge' }
  /** 4000008400001629: a challenge that fails whatever the shopper chooses. */
  | { kind: 'challenge_then_fail' }
  /** Transport answers: nothing is recorded. */
  | { kind: 'rate_limited' }
  | { kind: 'bad_gateway' }
  | { kind: 'unavailable' };

export type RefundBehaviour = 'succeed' | 'fail_after_settle' | 'reject';

export type PayoutBehaviour =
  | { kind: 'succeed' }
  | { kind: 'fail'; code: FailureCode }
  /** First submission per key answers 429 without recording; later ones are accepted. */
  | { kind: 'rate_limited_first' }
  /** Recorded, but the first submission is answered 502 with an HTML body. */
  | { kind: 'bad_gateway_after_record' }
  /** First submission per key answers 503 without recording; later ones are accepted. */
  | { kind: 'unavailable_first' }
  /** Recorded, but the first answer comes later than any sane client timeout. */
  | { kind: 'slow_first' }
  /** Recorded, first answer 503, then fails with processor_unavailable after settling. */
  | { kind: 'unavailable_then_fail' };

const PAYMENT_CARDS: Record<string, PaymentBehaviour> = {
  '4000000000000002': { kind: 'decline', code: 'generic_decline' },
  '4000000000009995': { kind: 'decline', code: 'insufficient_funds' },
  '4000000000000101': { kind: 'decline', code: 'do_not_honor' },
  '4000000000000069': { kind: 'decline', code: 'expired_card' },
  '4000000000009987': { kind: 'decline', code: 'lost_card' },
  '4000000000009979': { kind: 'decline', code: 'stolen_card' },
  '4100000000000019': { kind: 'decline', code: 'fraud_filter' },
  '4000000000000127': { kind: 'decline', code: 'issuer_declined' },
  '4000000000000119': { kind: 'decline', code: 'processor_error' },
  '4000000000003220': { kind: 'challenge' },
  '4000000000003063': { kind: 'device_then_challenge' },
  '4000008400001629': { kind: 'challenge_then_fail' },
  '4000004290000003': { kind: 'rate_limited' },
  '4000005020000007': { kind: 'bad_gateway' },
  '4000005030000005': { kind: 'unavailable' },
};

const REFUND_CARDS: Record<string, RefundBehaviour> = {
  '4000000000005126': 'fail_after_settle',
  '4000009000000003': 'reject',
};

const PAYOUT_CARDS: Record<string, PayoutBehaviour> = {
  '4000000000000002': { kind: 'fail', code: 'generic_decline' },
  '4000000000009995': { kind: 'fail', code: 'insufficient_funds' },
  '4000004290000003': { kind: 'rate_limited_first' },
  '5555554290000003': { kind: 'rate_limited_first' },
  '4000005020000007': { kind: 'bad_gateway_after_record' },
  '4000005030000005': { kind: 'unavailable_first' },
  '4000007000000007': { kind: 'slow_first' },
  '4000007100000006': { kind: 'unavailable_then_fail' },
};

export function paymentBehaviour(number: string): PaymentBehaviour {
  return PAYMENT_CARDS[number] ?? { kind: 'approve' };
}

export function refundBehaviour(number: string): RefundBehaviour {
  return REFUND_CARDS[number] ?? 'succeed';
}

export function payoutBehaviour(number: string): PayoutBehaviour {
  return PAYOUT_CARDS[number] ?? { kind: 'succeed' };
}
