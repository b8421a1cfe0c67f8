// Events: their types, which status change raises which, and what a workflow hands over to be
// published (docs/webhooks.md lists the types). Pure and workflow-safe.
import { refundsMovedSince, type PaymentView, type RefundView } from './payment';
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

/**
 * The object an event shows, as the workflow holds it when the event is raised. A compact Payment
 * event (`refundsSince`, compactPaymentEvent) carries only some of its refunds.
 */
export type EventSubject =
  | { kind: 'payment'; payment: PaymentView; refundsSince?: string }
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

/** A compact Payment event needs at least this many refunds in the event it builds on. */
export const COMPACT_FROM_REFUNDS = 10;
/** A compact Payment event builds only on an event this recent: far inside the events' retention (30 days at least). */
export const BUILD_ON_EVENTS_WITHIN_SECONDS = 24 * 3600;

/**
 * Whether an event's recorded body holds its Payment's every refund, so that a later event may build
 * on it: a Payment's webhook event (a Shape B `callback_url` copy holds none).
 */
export function holdsEveryRefund(event: PendingEvent): boolean {
  return event.subject.kind === 'payment' && !event.callbackUrl;
}

/**
 * A Payment event carries the Payment with every refund (CONTRACT section 10). Through a hot
 * Payment's history that is quadratic in its refunds: each refund's `payment.refunded` would carry
 * all earlier ones, the run would continue as new every hundred refunds or so, and the outbox it
 * drains first would take seconds. So once the Payment's previous webhook event (`previous`, the
 * same run's) holds a few refunds, an event carries only the refunds that moved since that one and
 * names it in `refundsSince`: the outbox write takes the others from its recorded body
 * (src/representations/event-body.ts). Pure, for the workflow.
 */
export function compactPaymentEvent(event: PendingEvent, previous: PendingEvent | null): PendingEvent {
  const { subject } = event;
  if (subject.kind !== 'payment' || !holdsEveryRefund(event) || !previous || !holdsEveryRefund(previous) || previous.subject.kind !== 'payment') return event;
  const earlier = previous.subject.payment.refunds;
  if (earlier.length < COMPACT_FROM_REFUNDS || event.createdAt - previous.createdAt >= BUILD_ON_EVENTS_WITHIN_SECONDS) return event;
  return { ...event, subject: { kind: 'payment', payment: { ...subject.payment, refunds: refundsMovedSince(subject.payment.refunds, earlier) }, refundsSince: previous.id } };
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
