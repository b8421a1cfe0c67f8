// Request schemas of the Events API (docs/events.md). Combinations of parameters are checked by the route.
import Joi from 'joi';
import { EVENT_TYPES, eventTypesMatching, type EventType } from '../../domain/events';
import { isId } from '../../domain/ids';
import { createdGte, createdLt, pageLimit, repeatable } from './common';

/** What `type` takes: an event type, or a prefix wildcard of every type of one object. */
const EVENT_TYPE_FILTERS = [...EVENT_TYPES, ...[...new Set(EVENT_TYPES.map((type) => type.split('.')[0]))].map((object) => `${object}.*`)];

const eventId = () => Joi.string().custom((value: string, helpers) => (isId('event', value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be an event id (evt_ followed by 24 letters or digits)' });

const objectId = () => Joi.string().custom((value: string, helpers) => (isId('payment', value) || isId('refund', value) || isId('payout', value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be a Payment, Refund or Payout id (pay_, ref_ or po_ followed by 24 letters or digits)' });

export interface ListEventsQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  /** Each value's types: an exact type is one, a wildcard its prefix's. */
  type?: EventType[][];
  object_id?: string;
  'created[gte]'?: number;
  'created[lt]'?: number;
  delivery_success?: boolean;
}

export const listEventsQuerySchema = Joi.object<ListEventsQuery>({
  limit: pageLimit(),
  starting_after: eventId().description('Event id: the page after it (newer-to-older order). Not with `ending_before`.'),
  ending_before: eventId().description('Event id: the page before it. Not with `starting_after`.'),
  type: repeatable(Joi.string().valid(...EVENT_TYPE_FILTERS), (value) => eventTypesMatching(value), '{{#label}} must be an event type, or a prefix wildcard such as payment.*')
    .description('Repeatable: an event type, or a prefix wildcard such as `payment.*` (every `payment.` type). An event matches any one.'),
  object_id: objectId().description('Only the events of this Payment, Refund or Payout.'),
  'created[gte]': createdGte(),
  'created[lt]': createdLt(),
  delivery_success: Joi.boolean()
    .description('`true`: every delivery of the event succeeded (an event sent to no endpoint counts); `false`: at least one has not (yet).'),
});

export interface RetryEventRequest {
  webhook_endpoint_id?: string;
}

export const retryEventSchema = Joi.object<RetryEventRequest>({
  webhook_endpoint_id: Joi.string().custom((value: string, helpers) => (isId('webhookEndpoint', value) ? value : helpers.error('any.invalid')))
    .messages({ 'any.invalid': '{{#label}} must be a webhook endpoint id (we_ followed by 24 letters or digits)' })
    .description('Only this endpoint (one the event was sent to); without it, every endpoint the event was sent to.'),
}).required().description('Which endpoints to send the event to again.');
