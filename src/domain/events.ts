// Events: their types, which status change raises which, and what a workflow hands over to be
// published (docs/webhooks.md lists the types). Pure and workflow-safe.
import type { PaymentView, RefundView } from './payment';
import type { PayoutView } from './payout';

export const EVENT_TYPES = [
  'payment.requires_action', 'payment.processing', 'payment.succeeded', 'payment.failed', 'payment.expired', 'payment.refunded',
  'refund.processing', 'refund.succeeded', 'refund.failed',
  'payout.pending', 'payout.processing', 'payout.succeeded', 'payout.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export type EventObject = 'payment' | 'refund' | 'payout';

/**
 * The event a move into `status` raises, or null when that status has none (a Payment's PENDING).
 * `REFUNDED` is no Payment status: a Payment raises `payment.refunded` each time one of its
 * Refunds succeeds, its balance changed (workflows/payment/refund-window.ts).
 */
export function eventTypeFor(object: EventObject, status: string): EventType | null {
  const type = `${object}.${status.toLowerCase()}`;
  return (EVENT_TYPES as readonly string[]).includes(type) ? (type as EventType) : null;
}

/** Event ids from a workflow's deterministic uuid4(): `evt_` and 24 hex characters. */
export function eventIdFromUuid(uuid: string): string {
  return `evt_${uuid.replace(/-/g, '').slice(0, 24)}`;
}

/** The object an event shows, as the workflow holds it when the event is raised. */
export type EventSubject =
  | { kind: 'payment'; payment: PaymentView }
  | { kind: 'refund'; refund: RefundView; livemode: boolean }
  | { kind: 'payout'; payout: PayoutView };

/** An event a workflow raised, waiting in its outbox to be recorded and published. */
export interface PendingEvent {
  id: string;
  type: EventType;
  merchantId: string;
  livemode: boolean;
  objectId: string;
  createdAt: number;
  subject: EventSubject;
  /** A Shape B `callback_url`: the event goes there instead of the webhook URL, its body the Shape B payment. */
  callbackUrl?: string;
}

/**
 * The event types a `type` filter names: one exact type, or a prefix wildcard ending in `.*`
 * (`payment.*`: every `payment.` type). Null for anything else, a wildcard matching no type included.
 */
export function eventTypesMatching(pattern: string): EventType[] | null {
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -1);
    const types = EVENT_TYPES.filter((type) => type.startsWith(prefix));
    return types.length ? types : null;
  }
  return (EVENT_TYPES as readonly string[]).includes(pattern) ? [pattern as EventType] : null;
}

/** An event as recorded: the exact body its deliveries send. */
export interface RecordedEvent {
  id: string;
  type: string;
  createdAt: number;
  livemode: boolean;
  /** The delivered JSON body. */
  payload: string;
}

/** What happened to an event's delivery to one endpoint; times in ms. */
export interface EventDeliveryView {
  endpointId: string | null;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAtMs: number | null;
  attempts: Array<{ attemptedAtMs: number; statusCode: number | null; error: string | null; latencyMs: number }>;
}
