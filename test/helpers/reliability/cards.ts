// The documented test cards (docs/quickstart.md, "Test cards") the suite uses, with what each must
// end in, and a register of every card number and CVC sent, which the secrets scan looks for
// afterwards.
import { TEST_CARD_NUMBERS } from '../../../src/domain/cards';

export const FUTURE_YEAR = new Date().getFullYear() + 2;

/** Distinctive CVCs, so the secrets scan can look for them as values. */
export const CVCS = ['737', '7373'] as const;

export interface Outcome {
  status: 'SUCCEEDED' | 'FAILED';
  failureCode: string | null;
}

export const SUCCEEDS: Outcome = { status: 'SUCCEEDED', failureCode: null };
export const failsWith = (failureCode: string): Outcome => ({ status: 'FAILED', failureCode });

/** Direct Payments: the card and how its Payment ends (3D Secure cards after the shopper acts). */
export const PAYMENT_CARDS = {
  visa: { number: '4242424242424242', outcome: SUCCEEDS },
  mastercard: { number: '5555555555554444', outcome: SUCCEEDS },
  amex: { number: '378282246310005', outcome: SUCCEEDS },
  discover: { number: '6011111111111117', outcome: SUCCEEDS },
  genericDecline: { number: '4000000000000002', outcome: failsWith('generic_decline') },
  insufficientFunds: { number: '4000000000009995', outcome: failsWith('insufficient_funds') },
  doNotHonor: { number: '4000000000000101', outcome: failsWith('do_not_honor') },
  lostCard: { number: '4000000000009987', outcome: failsWith('lost_card') },
  processorError: { number: '4000000000000119', outcome: failsWith('processor_error') },
  challenge: { number: '4000000000003220', outcome: SUCCEEDS },
  deviceThenChallenge: { number: '4000000000003063', outcome: SUCCEEDS },
  challengeAlwaysFails: { number: '4000008400001629', outcome: failsWith('three_d_secure_failed') },
  refundFails: { number: '4000000000005126', outcome: SUCCEEDS },
  refundRejected: { number: '4000009000000003', outcome: SUCCEEDS },
} as const;

/** Refunds by the card of their Payment. */
export const REFUND_OUTCOMES: Record<string, Outcome> = {
  [PAYMENT_CARDS.refundFails.number]: failsWith('processor_error'),
  [PAYMENT_CARDS.refundRejected.number]: failsWith('not_permitted'),
};
export const refundOutcome = (paymentCard: string): Outcome => REFUND_OUTCOMES[paymentCard] ?? SUCCEEDS;

/** Payouts: the destination card and how the Payout ends (uncertain first answers included). */
export const PAYOUT_CARDS = {
  visa: { number: '4242424242424242', outcome: SUCCEEDS },
  mastercard: { number: '5555555555554444', outcome: SUCCEEDS },
  declined: { number: '4000000000000002', outcome: failsWith('generic_decline') },
  insufficientFunds: { number: '4000000000009995', outcome: failsWith('insufficient_funds') },
  rateLimitedFirst: { number: '4000004290000003', outcome: SUCCEEDS },
  unavailableFirst: { number: '4000005030000005', outcome: SUCCEEDS },
  badGatewayFirst: { number: '4000005020000007', outcome: SUCCEEDS },
  processorUnavailable: { number: '4000007100000006', outcome: failsWith('processor_unavailable') },
} as const;

const usedNumbers = new Set<string>();
const usedCvcs = new Set<string>(CVCS);

/** Records a card number sent to the service; only documented test cards may be used. */
export function useCard(number: string): string {
  if (!TEST_CARD_NUMBERS.has(number)) throw new Error('only documented test cards may be used');
  usedNumbers.add(number);
  return number;
}

export function useCvc(cvc: string): string {
  usedCvcs.add(cvc);
  return cvc;
}

export function usedCardNumbers(): string[] {
  return [...usedNumbers];
}

export function usedCvcValues(): string[] {
  return [...usedCvcs];
}
