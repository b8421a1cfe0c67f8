// Request schemas of the Events API (docs/events.md). Combinations of parameters are checked by the route.
import Joi from 'joi';
import { eventTypesMatching, type EventType } from '../../domain/events';
import { isId } from '../../domain/ids';
import { repeatable, unixSeconds } from './common';

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
  limit: Joi.number().integer().min(1).max(100).default(10),
  starting_after: eventId(),
  ending_before: eventId(),
  type: repeatable((value) => eventTypesMatching(value), '{{#label}} must be an event type, or a prefix wildcard such as payment.*'),
  object_id: objectId(),
  'created[gte]': unixSeconds(),
  'created[lt]': unixSeconds(),
  delivery_success: Joi.boolean(),
});

export interface RetryEventRequest {
  webhook_endpoint_id?: string;
}

export const retryEventSchema = Joi.object<RetryEventRequest>({
  webhook_endpoint_id: Joi.string().custom((value: string, helpers) => (isId('webhookEndpoint', value) ? value : helpers.error('any.invalid')))
    .messages({ 'any.invalid': '{{#label}} must be a webhook endpoint id (we_ followed by 24 letters or digits)' }),
}).required();
