// The Events API (Shape A only; docs/events.md).
import { listEventsQuerySchema, retryEventSchema } from '../schemas/events';
import { operation } from './operation';

export const listEvents = operation({
  id: 'listEvents',
  method: 'get',
  path: '/v1/events',
  tag: 'Events',
  summary: 'List events',
  description: 'Newest first, stable across pages while new events are raised (`starting_after` / `ending_before` with an event id, '
    + 'not both). Filters combine: `type` (repeatable; an exact type or a prefix wildcard such as `payment.*`), `object_id`, '
    + 'the creation time, and `delivery_success`. Events are kept at least 30 days. A bad value is `400 invalid_search_criteria`.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  query: { A: listEventsQuerySchema },
  responses: [{ status: 200, description: 'One page of events.', json: { A: { component: 'EventList' } } }],
});

export const retrieveEvent = operation({
  id: 'retrieveEvent',
  method: 'get',
  path: '/v1/events/{id}',
  tag: 'Events',
  summary: 'Retrieve an event',
  description: 'The event as delivered, with one entry in `deliveries` per webhook endpoint it was sent to: its status, every attempt '
    + '(oldest first) and when the next one is due.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  pathParameter: 'EventId',
  responses: [{ status: 200, description: 'The event with its deliveries.', json: { A: { component: 'EventWithDeliveries' } } }],
});

export const retryEvent = operation({
  id: 'retryEvent',
  method: 'post',
  path: '/v1/events/{id}/retry',
  tag: 'Events',
  summary: 'Send an event again',
  description: 'One new attempt to each webhook endpoint the event was sent to (or only to `webhook_endpoint_id`), at its current URL, '
    + 'whatever earlier attempts did: the same `webhook-id`, a fresh timestamp and signature. The answer comes at once, with the event as '
    + 'retrieve shows it; the attempts run in the background and appear in `deliveries[].attempts`. An endpoint that got a manual attempt '
    + 'of the event in the last 60 s gets none. An endpoint the event was not sent to is `404 object_not_found`.',
  authenticated: true,
  create: true,
  shapes: ['A'],
  pathParameter: 'EventId',
  requestBody: { A: { component: 'RetryEventRequest', schema: retryEventSchema, examples: ['retryEventRequest'] } },
  requestBodyOptional: true,
  responses: [{ status: 200, description: 'The event with its deliveries as they are when the retry is taken (the new attempts follow).', json: { A: { component: 'EventWithDeliveries' } } }],
});
