// An event as the Events API shows it (docs/events.md): the body that was delivered
// (Shape A), with `object: "event"`, and on retrieve its deliveries with every attempt. Stored
// times in milliseconds are shown in Unix seconds like every other time of the API.
import type { EventDeliveryView, RecordedEvent } from '../domain/events';

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

export function serializeEvent(event: RecordedEvent) {
  const body = JSON.parse(event.payload) as { data: unknown };
  return { id: event.id, object: 'event' as const, type: event.type, created_at: event.createdAt, livemode: event.livemode, data: body.data };
}

export function serializeEventDetail(event: RecordedEvent, deliveries: EventDeliveryView[]) {
  return {
    ...serializeEvent(event),
    deliveries: deliveries.map((delivery) => ({
      webhook_endpoint_id: delivery.endpointId,
      url: delivery.url,
      status: delivery.status,
      attempts: delivery.attempts.map((attempt) => ({
        attempted_at: seconds(attempt.attemptedAtMs),
        http_status: attempt.statusCode,
        error: attempt.error,
        duration_ms: attempt.latencyMs,
      })),
      next_attempt_at: seconds(delivery.nextAttemptAtMs),
    })),
  };
}
