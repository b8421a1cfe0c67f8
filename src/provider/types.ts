// The protocol between the service and an acquirer. The sandbox acquirer speaks it over HTTP;
// a live adapter would implement ProviderClient the same way. Nothing here carries a CVC back.
import type { CardBrand } from '../domain/cards';
import type { FailureCode } from '../domain/failure-codes';

export interface ProviderCardSummary {
  brand: CardBrand;
  last4: string;
  country: string | null;
}

export interface AuthorizeRequest {
  /** Provider-side idempotency key, derived from the object id (`pay_x:authorize`). */
  idempotencyKey: string;
  reference: string; // payment id
  amount: number;
  currency: string;
  card: { number: string; exp_month: number; exp_year: number; cvc: string; holder_name?: string | null };
  /** Where the 3DS page sends the browser once the challenge is done. */
  returnUrl: string;
  /** Server-to-server URL the provider POSTs to when an authentication step changes. */
  notifyUrl: string;
}

export type AuthorizationResult =
  | { kind: 'processing'; providerId: string; card: ProviderCardSummary; settleAt: number }
  | { kind: 'succeeded'; providerId: string; card: ProviderCardSummary }
  | { kind: 'declined'; providerId: string; card: ProviderCardSummary; failureCode: FailureCode }
  | { kind: 'requires_action'; providerId: string; card: ProviderCardSummary; redirectUrl: string }
  /** The provider said 429; nothing was recorded. */
  | { kind: 'rate_limited'; retryAfterSeconds: number | null }
  /** An answer we could not validate (502, garbage, timeout): the provider may or may not have acted. */
  | { kind: 'unverifiable' }
  /** The provider is unavailable (503, connection refused); nothing was recorded. */
  | { kind: 'unavailable'; retryAfterSeconds: number | null };

/** An answer that ends the card's use: the provider acted and said how (not "later", not "could not tell"). */
export function isDefiniteAuthorization(result: AuthorizationResult): result is Extract<AuthorizationResult, { providerId: string }> {
  return 'providerId' in result;
}

export interface RefundRequest {
  idempotencyKey: string; // `ref_x:refund`
  reference: string; // refund id
  authorizationId: string;
  amount: number;
  currency: string;
}

/** What the provider says of money it is moving (a refund or a payout) once it has taken it. */
export type SettlingAnswer =
  | { kind: 'processing'; providerId: string; settleAt: number }
  | { kind: 'succeeded'; providerId: string }
  | { kind: 'failed'; providerId: string; failureCode: FailureCode };

export type RefundResult =
  | SettlingAnswer
  | { kind: 'rejected'; failureCode: FailureCode }
  | { kind: 'uncertain' };

export interface PayoutRequest {
  idempotencyKey: string; // `po_x:payout`
  reference: string; // payout id
  amount: number;
  currency: string;
  cardNumber: string;
  recipient: { first_name: string; last_name: string; country: string };
}

export type PayoutResult =
  | SettlingAnswer
  /** 429, 5xx, timeout or connection failure: the payout stays PENDING and is looked up later. */
  | { kind: 'uncertain'; reason: 'rate_limited' | 'server_error' | 'timeout' | 'unreachable'; retryAfterSeconds: number | null };

export type LookupResult<T> = T | { kind: 'not_found' } | { kind: 'uncertain' };

export interface ProviderClient {
  authorize(req: AuthorizeRequest): Promise<AuthorizationResult>;
  /** Current state of an authorization (after 3DS, or while settling). Never re-authorizes. */
  getAuthorization(providerId: string): Promise<LookupResult<AuthorizationResult>>;
  /** Looks an authorization up by the idempotency key it was submitted with; not_found means never received. */
  getAuthorizationByKey(idempotencyKey: string): Promise<LookupResult<AuthorizationResult>>;
  refund(req: RefundRequest): Promise<RefundResult>;
  getRefund(providerId: string): Promise<LookupResult<RefundResult>>;
  payout(req: PayoutRequest): Promise<PayoutResult>;
  /** Looks a payout up by the idempotency key it was submitted with; not_found means never received. */
  getPayoutByKey(idempotencyKey: string): Promise<LookupResult<PayoutResult>>;
}
