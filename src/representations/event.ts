// An event as the Events API shows it (CONTRACT 13, docs/events.md): the body that was delivered
// (Shape A), with `object: "event"`, and on retrieve its deliveries with every attempt. Stored
// times in milliseconds are shown in Unix seconds like every other time of the API.
import type { EventRow } from '../db/entities';
import type { EventDetail } from '../read-models/events';

const seconds = (ms: number | string | null): number | null => (ms === null ? null : Math.floor(Number(ms) / 1000));

export function serializeEvent(event: EventRow) {
  const body = JSON.parse(event.payload) as { data: unknown };
  return { id: event.id, object: 'event' as const, type: event.type, created_at: Number(event.created_at), livemode: event.livemode, data: body.data };
}

export function serializeEventDetail(detail: EventDetail) {
  return {
    ...serializeEvent(detail.event),
    deliveries: detail.deliveries.map(({ delivery, attempts }) => ({
      webhook_endpoint_id: delivery.endpoint_id,
      url: delivery.url,
      status: delivery.status,
      attempts: attempts.map((attempt) => ({
        attempted_at: seconds(attempt.attempted_at_ms),
        http_status: attempt.status_code,
        error: attempt.error,
        duration_ms: attempt.latency_ms,
      })),
      next_attempt_at: seconds(delivery.next_attempt_at),
    })),
  };
}
