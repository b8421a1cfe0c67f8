// Idempotency identities (docs/api-reference.md, "Idempotency"): for each operation that takes an
// Idempotency-Key, which request fields make a retry "the same request", and for each request that
// moves money at the provider, the provider's idempotency key. The store (src/services/idempotency.ts)
// binds a key to the fingerprint (./fingerprint.ts) of the identity made here.
import { createHmac } from 'node:crypto';
import { fingerprint } from './fingerprint';
import { canonicalIp } from './ip';
import { normalizeCurrency } from './money';
import type { IntegrationType } from './payment';

/**
 * What a claim binds an Idempotency-Key to: the operation the key is scoped to, the name the
 * fingerprint gives the fields, and the fields themselves (parsed values; omitted equals null).
 */
export interface RequestIdentity {
  /** The endpoint's operation, whichever shape it is asked in: a key is scoped to it. */
  operation: string;
  /**
   * The fingerprint's name for the fields. A shape with fields of its own (Shape B's creates) names
   * them apart, so a key first sent in one shape and retried in the other finds its claim and
   * differs (`409 idempotency_key_reused`) instead of creating a second Payment.
   */
  name: string;
  fields: Record<string, unknown>;
}

const identity = (operation: string, fields: Record<string, unknown>, name = operation): RequestIdentity => ({ operation, name, fields });

/** The fingerprint a claim stores for an identity. */
export const fingerprintOf = (id: RequestIdentity): string => fingerprint(id.name, id.fields);

/** A Shape A create, Direct or Hosted. Card fields are never part of it: a card-only change replays the original. */
export function paymentCreateIdentity(integrationType: IntegrationType, request: {
  amount: number;
  currency: string;
  billing_details?: unknown;
  customer_ip_address?: string;
  description?: string | null;
  merchant_customer_id?: string | null;
  merchant_reference?: number | null;
  return_url?: string;
}): RequestIdentity {
  const direct = integrationType === 'DIRECT';
  return identity(direct ? 'payments.create' : 'payments.create_hosted', {
    amount: request.amount,
    // Direct: the currency text as submitted; Hosted: trimmed and uppercased.
    currency: direct ? request.currency : request.currency.trim().toUpperCase(),
    billing_details: request.billing_details,
    customer_ip_address: request.customer_ip_address,
    description: request.description,
    merchant_customer_id: request.merchant_customer_id,
    merchant_reference: request.merchant_reference,
    return_url: request.return_url,
  });
}

/** A Shape B Direct create: the amount and currency; the card is not part of it, as in Shape A. */
export function shapeBDirectCreateIdentity(request: { amount: number; currency: string }): RequestIdentity {
  return identity('payments.create', { amount: request.amount, currency: request.currency }, 'payments.create_b');
}

/** A Shape B hosted create. */
export function shapeBHostedCreateIdentity(request: {
  amount: number;
  currency: string;
  redirect_url?: string;
  customer?: unknown;
  description?: string | null;
  metadata?: unknown;
  callback_url?: string | null;
}): RequestIdentity {
  return identity('payments.create_hosted', {
    amount: request.amount,
    currency: request.currency,
    redirect_url: request.redirect_url,
    customer: request.customer,
    description: request.description,
    metadata: request.metadata,
    callback_url: request.callback_url,
  }, 'payments.create_hosted_b');
}

/** A refund: the Payment, the amount and the merchant's labels. */
export function refundCreateIdentity(request: { payment_id: string; amount?: number; merchant_reference?: number | null; reason?: string | null }): RequestIdentity {
  return identity('refunds.create', {
    payment_id: request.payment_id,
    amount: request.amount,
    merchant_reference: request.merchant_reference,
    reason: request.reason,
  });
}

/** Shape B's full refund of a Payment: the Payment alone. */
export function shapeBRefundIdentity(paymentId: string): RequestIdentity {
  return identity('payments.refund_b', { payment_id: paymentId });
}

/** A payout request as the API parses it (`POST /v1/payouts`). */
export interface PayoutRequest {
  amount: number;
  currency: string;
  initiator_ip_address: string;
  recipient: { first_name: string; last_name: string; country: string };
  destination: { card_number: string };
  merchant_reference?: number | null;
}

/**
 * The destination card as it enters a payout's identity: a digest keyed with the vault key, so a
 * stored fingerprint cannot be reversed to the card number by trying every number.
 */
export function payoutDestinationDigest(vaultKeyHex: string, cardNumber: string): string {
  return createHmac('sha256', Buffer.from(vaultKeyHex, 'hex')).update(`payout-destination:${cardNumber}`).digest('hex');
}

/**
 * A payout, by parsed values: `2001:DB8::1` and `2001:db8:0:0:0:0:0:1`, or `es` and `ES`, are one
 * request. The destination card enters as its keyed digest.
 */
export function payoutCreateIdentity(vaultKeyHex: string, request: PayoutRequest): RequestIdentity {
  return identity('payouts.create', {
    amount: request.amount,
    currency: normalizeCurrency(request.currency),
    initiator_ip_address: canonicalIp(request.initiator_ip_address),
    recipient: { first_name: request.recipient.first_name, last_name: request.recipient.last_name, country: request.recipient.country.toUpperCase() },
    destination: { card_number: payoutDestinationDigest(vaultKeyHex, request.destination.card_number) },
    merchant_reference: request.merchant_reference,
  });
}

/** A webhook endpoint's creation, with its enabled events normalized; the version as asked (absent: the account's). */
export function webhookEndpointCreateIdentity(input: { url: string; enabledEvents: string[]; description: string | null }, requestedVersion: string | undefined): RequestIdentity {
  return identity('webhook_endpoints.create', { url: input.url, enabled_events: input.enabledEvents, description: input.description, api_version: requestedVersion });
}

/** A signing secret's rotation: a retry after a lost answer must not rotate twice. */
export function secretRotationIdentity(endpointId: string, gracePeriodSeconds: number | undefined): RequestIdentity {
  return identity('webhook_endpoints.rotate_secret', { webhook_endpoint_id: endpointId, grace_period_seconds: gracePeriodSeconds });
}

/** An event's manual resend, to all its endpoints or one. */
export function eventRetryIdentity(eventId: string, endpointId: string | undefined): RequestIdentity {
  return identity('events.retry', { event_id: eventId, webhook_endpoint_id: endpointId });
}

/** The requests that act on our object at the provider, each under a key of its own. */
export type ActingOperation = 'authorize' | 'refund' | 'payout';

/**
 * The provider's idempotency key of a request that acts on our object (`pay_x:authorize`): a
 * retried activity, or a resubmission, can never act twice, and a lookup by key finds what it did.
 */
export const providerKey = (objectId: string, operation: ActingOperation): string => `${objectId}:${operation}`;

/** What every request that moves money starts with: the key, our object as the reference, the amount. */
export function actingRequest(objectId: string, operation: ActingOperation, money: { amount: number; currency: string }) {
  return { idempotencyKey: providerKey(objectId, operation), reference: objectId, amount: money.amount, currency: money.currency };
}
