// Event types of CONTRACT 10 and which status change raises which. Pure and workflow-safe.
export const EVENT_TYPES = [
  'payment.requires_action', 'payment.processing', 'payment.succeeded', 'payment.failed', 'payment.expired',
  'refund.processing', 'refund.succeeded', 'refund.failed',
  'payout.pending', 'payout.processing', 'payout.succeeded', 'payout.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export type EventObject = 'payment' | 'refund' | 'payout';

/** The event a move into `status` raises, or null when that status has none (a Payment's PENDING). */
export function eventTypeFor(object: EventObject, status: string): EventType | null {
  const type = `${object}.${status.toLowerCase()}`;
  return (EVENT_TYPES as readonly string[]).includes(type) ? (type as EventType) : null;
}

/** Event ids from a workflow's deterministic uuid4(): `evt_` and 24 hex characters. */
export function eventIdFromUuid(uuid: string): string {
  return `evt_${uuid.replace(/-/g, '').slice(0, 24)}`;
}
