// Response schemas of the Events API (docs/events.md): an event as it was delivered, with
// `object: "event"`, and on retrieve its deliveries with every attempt.
import { EVENT_TYPES } from '../../domain/events';
import { objectSchema, timestamp } from './response-schemas';
import { schemaRef, type JsonSchema } from './types';

const EVENT_ID_PATTERN = '^evt_[A-Za-z0-9]{24}$';

function eventProperties(): Record<string, JsonSchema> {
  return {
    id: { type: 'string', pattern: EVENT_ID_PATTERN, description: 'The event id, the `webhook-id` of its deliveries.' },
    object: { type: 'string', const: 'event' },
    type: { type: 'string', enum: [...EVENT_TYPES], description: 'New types may appear.' },
    created_at: timestamp(false, 'When the change happened (Unix seconds).'),
    livemode: { type: 'boolean' },
    data: objectSchema('The object as it was at the change (Shape A), as delivered.', {
      object: { anyOf: [schemaRef('Payment'), schemaRef('Refund'), schemaRef('Payout')] },
    }),
  };
}

export function eventApiSchemas(): Record<string, JsonSchema> {
  const attempt = objectSchema('One attempt to deliver the event to the endpoint.', {
    attempted_at: timestamp(false, 'When the attempt was made (Unix seconds).'),
    http_status: { type: ['integer', 'null'], description: 'The endpoint\'s answer; `null` when none came (a time-out, a refused connection).' },
    error: { type: ['string', 'null'], description: 'Why the attempt failed, when it did without or besides a status (`timeout`, a connection error).' },
    duration_ms: { type: 'integer', minimum: 0 },
  });
  const delivery = objectSchema('The event\'s delivery to one webhook endpoint.', {
    webhook_endpoint_id: { type: ['string', 'null'], pattern: '^we_[A-Za-z0-9]{24}$', description: 'The endpoint (it may have been deleted since).' },
    url: { type: 'string', description: 'The endpoint\'s URL when the event was raised.' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'], description: '`pending` while attempts go on, `failed` once they stopped without a 2xx.' },
    attempts: { type: 'array', items: attempt, description: 'Oldest first.' },
    next_attempt_at: timestamp(true, 'When the next attempt is due; `null` when none is scheduled.'),
  });
  return {
    Event: objectSchema('An event: what was delivered to the merchant\'s webhook endpoints.', eventProperties()),
    EventWithDeliveries: objectSchema('An event with its deliveries, one per webhook endpoint it was sent to.', {
      ...eventProperties(),
      deliveries: { type: 'array', items: delivery },
    }),
    EventList: objectSchema('A page of events, newest first.', {
      object: { type: 'string', const: 'list' },
      data: { type: 'array', items: schemaRef('Event') },
      has_more: { type: 'boolean', description: 'Whether more pages exist; a page may be shorter than `limit` even when true.' },
      url: { type: 'string', const: '/v1/events' },
    }),
  };
}
