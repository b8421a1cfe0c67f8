// In-memory state of the sandbox acquirer. Nothing is persisted: a restart forgets every
// authorization, refund and payout, which is what a test acquirer should do. Records hold the
// card brand, last four digits and a behaviour tag, never the card number or CVC.
import type { CardBrand } from '../../domain/cards';
import type { FailureCode } from '../../domain/failure-codes';
import type { PaymentBehaviour, RefundBehaviour } from './test-cards';

export interface SandboxOptions {
  /** How long processing objects take to settle; 0 settles at once. */
  settleMs: number;
  /** HMAC-SHA256 key of the `Sandbox-Signature` header on notifications. */
  notifySecret: string;
  /** Bearer token of the control endpoints (`/_sandbox/*`); without one they answer 404. */
  controlToken?: string | null;
  /** Base of the 3DS page URLs; defaults to the origin of the request that created them. */
  publicUrl?: string | null;
  /** Delay of the first answer for the slow payout card (4000007000000007). */
  timeoutDelayMs?: number;
  /** How long a 3DS completion waits for the service to take the notification. */
  notifyTimeoutMs?: number;
  /** Background retry schedule of a failed notification (bounded). */
  notifyRetryDelaysMs?: number[];
  /** Clock, for tests. */
  now?: () => number;
  log?: (line: string) => void;
}

export interface CardSummary {
  brand: CardBrand;
  last4: string;
  country: string;
}

export type ThreeDsStepKind = 'device' | 'challenge';

export interface AuthorizationRecord {
  id: string;
  idempotencyKey: string;
  reference: string;
  amount: number;
  currency: string;
  status: 'processing' | 'succeeded' | 'declined' | 'requires_action';
  declineCode: FailureCode | null;
  card: CardSummary;
  behaviour: PaymentBehaviour['kind'];
  refundBehaviour: RefundBehaviour;
  settleAt: number | null;
  step: { kind: ThreeDsStepKind; token: string } | null;
  actionUrl: string | null;
  returnUrl: string;
  notifyUrl: string;
  createdAt: number;
  updatedAt: number;
}

export interface RefundRecord {
  id: string;
  idempotencyKey: string;
  reference: string;
  authorizationId: string;
  amount: number;
  currency: string;
  status: 'processing' | 'succeeded' | 'failed' | 'rejected';
  failureCode: FailureCode | null;
  settleAt: number | null;
  /** What processing turns into once settled. */
  outcome: { status: 'succeeded' } | { status: 'failed'; failureCode: FailureCode };
  createdAt: number;
  updatedAt: number;
}

export interface PayoutRecord {
  id: string;
  idempotencyKey: string;
  reference: string;
  amount: number;
  currency: string;
  status: 'processing' | 'succeeded' | 'failed';
  failureCode: FailureCode | null;
  settleAt: number | null;
  outcome: { status: 'succeeded' } | { status: 'failed'; failureCode: FailureCode };
  card: CardSummary;
  recipientCountry: string;
  createdAt: number;
  updatedAt: number;
}

/** Faults applied to the next provider API calls (`/v1/...` only). */
export interface Faults {
  /** Added to every `/v1` call until cleared. */
  latencyMs: number;
  /** The next N calls answer `failStatus` without being processed. */
  failNext: number;
  failStatus: 429 | 500 | 502 | 503;
  /** The `Retry-After` (seconds) of those answers: 1 on a 429 unless set; a 503 carries one only when set. */
  retryAfterSeconds: number | null;
  /** The next N calls have their socket destroyed without an answer, before processing. */
  resetNext: number;
  /** The next N calls are processed, then their socket is destroyed (the provider acted). */
  resetAfterNext: number;
  /** The next call is processed twice (a duplicated request); the second answer is sent. */
  duplicateNext: number;
  /** Only calls whose path starts with this (and, when set, with this method) are touched. */
  pathPrefix: string;
  method: string | null;
  /**
   * When set, only calls about objects recorded at or after this time (ms), or not recorded at
   * all, are touched: objects of earlier tests still being polled cannot use the faults up.
   */
  newObjectsSince: number | null;
}

export interface NotificationLog {
  authorizationId: string;
  reference: string;
  attempts: number;
  delivered: boolean;
}

export interface SandboxState {
  /** Keyed by idempotency key: one record per key, however often it is submitted. */
  authorizations: Map<string, AuthorizationRecord>;
  refunds: Map<string, RefundRecord>;
  payouts: Map<string, PayoutRecord>;
  authorizationsById: Map<string, AuthorizationRecord>;
  refundsById: Map<string, RefundRecord>;
  payoutsById: Map<string, PayoutRecord>;
  /** Submissions per payout idempotency key, recorded or not (429/503-first cards). */
  payoutAttempts: Map<string, number>;
  faults: Faults;
  notifications: NotificationLog[];
  /** Mutable so that startSandbox can fill in the URL once the port is known. */
  settings: { publicUrl: string | null };
}

export function noFaults(): Faults {
  return { latencyMs: 0, failNext: 0, failStatus: 503, retryAfterSeconds: null, resetNext: 0, resetAfterNext: 0, duplicateNext: 0, pathPrefix: '/v1/', method: null, newObjectsSince: null };
}

export function createState(publicUrl: string | null): SandboxState {
  return {
    authorizations: new Map(),
    refunds: new Map(),
    payouts: new Map(),
    authorizationsById: new Map(),
    refundsById: new Map(),
    payoutsById: new Map(),
    payoutAttempts: new Map(),
    faults: noFaults(),
    notifications: [],
    settings: { publicUrl },
  };
}

export function clearState(state: SandboxState): void {
  state.authorizations.clear();
  state.refunds.clear();
  state.payouts.clear();
  state.authorizationsById.clear();
  state.refundsById.clear();
  state.payoutsById.clear();
  state.payoutAttempts.clear();
  state.faults = noFaults();
  state.notifications.length = 0;
}
