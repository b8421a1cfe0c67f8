// The Payout as its PayoutWorkflow owns it, and the pure rules around it: destination eligibility,
// recipient names, and when to ask the provider again. Workflow-safe (no I/O, no Node APIs).
import { detectBrand, isPayoutEligibleBrand, isTestCard, last4, luhnValid, type CardBrand } from './cards';
import type { FailureCode } from './failure-codes';
import { characterCount } from './text';

export const PAYOUT_STATUSES = ['PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export function isPayoutStatus(value: string): value is PayoutStatus {
  return (PAYOUT_STATUSES as readonly string[]).includes(value);
}

export function isTerminalPayoutStatus(status: PayoutStatus): boolean {
  return status === 'SUCCEEDED' || status === 'FAILED';
}

export interface PayoutRecipient {
  /** Exactly as submitted: no trimming or normalization. */
  first_name: string;
  last_name: string;
  /** Uppercase ISO 3166 alpha-2. */
  country: string;
}

export interface PayoutDestination {
  brand: CardBrand;
  last4: string;
  country: string | null;
}

export interface PayoutView {
  id: string;
  merchant_id: string;
  livemode: boolean;
  amount: number;
  currency: string;
  status: PayoutStatus;
  merchant_reference: number | null;
  recipient: PayoutRecipient;
  destination: PayoutDestination;
  /** Canonical form of the submitted literal. */
  initiator_ip_address: string;
  failure_code: FailureCode | null;
  failure_message: string | null;
  /** How often the provider was asked about this payout after its submission, and when last. */
  poll_attempts: number;
  last_polled_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  version: number;
}

/** What a submission decides of a new Payout; the rest is how every Payout starts. */
export type NewPayoutFields = Pick<PayoutView, 'id' | 'merchant_id' | 'livemode' | 'amount' | 'currency' | 'merchant_reference' | 'recipient' | 'destination' | 'initiator_ip_address'>;

/** A Payout as its submission hands it to its workflow: PENDING, never polled, version 0, created `now`. */
export function newPayout(p: NewPayoutFields, now: number): PayoutView {
  return {
    id: p.id,
    merchant_id: p.merchant_id,
    livemode: p.livemode,
    amount: p.amount,
    currency: p.currency,
    status: 'PENDING',
    merchant_reference: p.merchant_reference,
    recipient: p.recipient,
    destination: p.destination,
    initiator_ip_address: p.initiator_ip_address,
    failure_code: null,
    failure_message: null,
    poll_attempts: 0,
    last_polled_at: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
    version: 0,
  };
}

export const MAX_RECIPIENT_NAME_LENGTH = 255;

/** 1 to 255 characters (code points) with at least one that is not whitespace. */
export function isValidRecipientName(name: string): boolean {
  const length = characterCount(name);
  return length >= 1 && length <= MAX_RECIPIENT_NAME_LENGTH && /\S/u.test(name);
}

export type DestinationCheck =
  | { ok: true; brand: CardBrand; last4: string }
  | { ok: false; code: 'invalid_card' | 'unsupported_card'; message: string };

/**
 * Destination eligibility (docs/api-reference.md, "Payouts"): 12 to 19 digits and Luhn-valid, a Visa or
 * Mastercard, and no test card with a live key. Messages never repeat the number.
 */
export function checkDestinationCard(number: string, livemode: boolean): DestinationCheck {
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
    return { ok: false, code: 'invalid_card', message: '`destination.card_number` must be a valid card number of 12 to 19 digits.' };
  }
  if (livemode && isTestCard(number)) {
    return { ok: false, code: 'invalid_card', message: '`destination.card_number` is a test card, which cannot be used with a live API key.' };
  }
  const brand = detectBrand(number);
  if (!isPayoutEligibleBrand(brand)) {
    return { ok: false, code: 'unsupported_card', message: 'Payouts can only be sent to Visa or Mastercard cards.' };
  }
  return { ok: true, brand, last4: last4(number) };
}

/**
 * Issuing country of a destination. The payout protocol does not report one; every sandbox card is
 * issued in the US (docs/quickstart.md, "Test cards"), and a live destination's country is unknown.
 */
export function destinationCountry(livemode: boolean): string | null {
  return livemode ? null : 'US';
}
