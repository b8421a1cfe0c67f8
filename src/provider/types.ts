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

/**
 * The provider gave no answer that proves anything: a 429, a 503, any other answer that does not
 * validate, a timeout, a lost connection, or (`call_failed`) an activity that could not make the
 * call. One question decides what follows: may the provider have acted on the request, so that it
 * may hold it under the request's idempotency key?
 */
export interface Unanswered {
  kind: 'unanswered';
  cause: UnansweredCause;
  /**
   * False only when the request provably was not acted on: it never left the service, or the
   * provider refused it with a status its protocol says records nothing. A lookup rules nothing
   * out, so a lookup without an answer says true.
   */
  mayHaveActed: boolean;
  /** The provider's Retry-After, when it sent one. */
  retryAfterSeconds: number | null;
}

export type UnansweredCause =
  | 'rate_limited' // 429
  | 'unavailable' // 503
  | 'not_sent' // no connection could be made: nothing reached the provider
  | 'timeout' // no answer within the client's timeout
  | 'connection_lost' // the connection broke once the request was on its way
  | 'invalid_answer' // any other status, or a body that does not validate or is about another object
  | 'call_failed'; // the activity asking the provider failed: the service cannot tell what happened

/** A lookup's answer: the object as the provider holds it, none (never received), or no answer. */
export type Lookup<Answer> = Answer | { kind: 'not_found' } | Unanswered;

export type AuthorizationAnswer =
  | { kind: 'processing'; providerId: string; card: ProviderCardSummary; settleAt: number }
  | { kind: 'succeeded'; providerId: string; card: ProviderCardSummary }
  | { kind: 'declined'; providerId: string; card: ProviderCardSummary; failureCode: FailureCode }
  | { kind: 'requires_action'; providerId: string; card: ProviderCardSummary; redirectUrl: string };

export type AuthorizationResult = AuthorizationAnswer | Unanswered;

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

export type RefundAnswer = SettlingAnswer | { kind: 'rejected'; failureCode: FailureCode };
export type RefundResult = RefundAnswer | Unanswered;

export interface PayoutRequest {
  idempotencyKey: string; // `po_x:payout`
  reference: string; // payout id
  amount: number;
  currency: string;
  cardNumber: string;
  recipient: { first_name: string; last_name: string; country: string };
}

export type PayoutAnswer = SettlingAnswer;
export type PayoutResult = PayoutAnswer | Unanswered;

/**
 * How long the caller still wants the answer: an activity that is cancelled (a local attempt past
 * its deadline) aborts the request, so the call stops holding the worker's slot and reports a
 * timeout, an answer that proves nothing.
 */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface ProviderClient {
  authorize(req: AuthorizeRequest): Promise<AuthorizationResult>;
  /** Current state of an authorization (after 3DS, or while settling). Never re-authorizes. */
  getAuthorization(providerId: string): Promise<Lookup<AuthorizationAnswer>>;
  /** Looks an authorization up by the idempotency key it was submitted with; not_found means never received. */
  getAuthorizationByKey(idempotencyKey: string): Promise<Lookup<AuthorizationAnswer>>;
  refund(req: RefundRequest): Promise<RefundResult>;
  getRefund(providerId: string): Promise<Lookup<RefundAnswer>>;
  payout(req: PayoutRequest, options?: CallOptions): Promise<PayoutResult>;
  /** Looks a payout up by the idempotency key it was submitted with; not_found means never received. */
  getPayoutByKey(idempotencyKey: string, options?: CallOptions): Promise<Lookup<PayoutAnswer>>;
}
