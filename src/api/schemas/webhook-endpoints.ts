// Request schemas of the webhook endpoint operations (docs/webhooks.md, "Endpoints"). Whether a
// URL may receive the mode's events (the destination policy, a DNS look-up in live mode) is checked
// by the route right after these, with the same `parameter_invalid` on `url`.
import Joi from 'joi';
import { isId } from '../../domain/ids';
import { isEnabledEventName, MAX_ENDPOINT_DESCRIPTION, MAX_ENDPOINT_URL, MAX_ROTATION_GRACE_SECONDS, DEFAULT_ROTATION_GRACE_SECONDS } from '../../domain/webhook-endpoints';
import { isKnownVersion } from '../../representations/versions';
import type { WebhookEndpointStatus } from '../../domain/webhook-endpoints';
import { text } from './common';

/** An absolute http(s) URL without credentials. */
const endpointUrl = () => text(MAX_ENDPOINT_URL).custom((value: string, helpers) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return helpers.error('any.invalid');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return helpers.error('any.invalid');
  return value;
}).messages({ 'any.invalid': '{{#label}} must be an absolute http or https URL' });

const MAX_ENABLED_EVENTS = 50;

const enabledEvents = () => Joi.array().min(1).max(MAX_ENABLED_EVENTS).items(
  Joi.string().custom((value: string, helpers) => (isEnabledEventName(value) ? value : helpers.error('any.invalid')))
    .messages({ 'any.invalid': '{{#label}} must be an event type (such as payment.succeeded) or *' }),
).messages({ 'array.min': '{{#label}} must name at least one event type, or *' });

const description = () => text(MAX_ENDPOINT_DESCRIPTION).allow(null);

export interface CreateWebhookEndpointRequest {
  url: string;
  enabled_events: string[];
  description?: string | null;
  api_version?: string;
}

export const createWebhookEndpointSchema = Joi.object<CreateWebhookEndpointRequest>({
  url: endpointUrl().required(),
  enabled_events: enabledEvents().required(),
  description: description(),
  api_version: Joi.string().custom((value: string, helpers) => (isKnownVersion(value) ? value : helpers.error('any.invalid')))
    .messages({ 'any.invalid': '{{#label}} must be a known Service-Version (2024-06-01 or 2025-09-01)' }),
}).required();

export interface UpdateWebhookEndpointRequest {
  url?: string;
  enabled_events?: string[];
  description?: string | null;
  status?: WebhookEndpointStatus;
}

export const updateWebhookEndpointSchema = Joi.object<UpdateWebhookEndpointRequest>({
  url: endpointUrl(),
  enabled_events: enabledEvents(),
  description: description(),
  status: Joi.string().valid('enabled', 'disabled'),
}).required();

export interface RotateWebhookSecretRequest {
  grace_period_seconds: number;
}

export const rotateWebhookSecretSchema = Joi.object<RotateWebhookSecretRequest>({
  grace_period_seconds: Joi.number().integer().min(0).max(MAX_ROTATION_GRACE_SECONDS).default(DEFAULT_ROTATION_GRACE_SECONDS),
}).required();

const endpointCursor = () => Joi.string().custom((value: string, helpers) => (isId('webhookEndpoint', value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be a webhook endpoint id (we_ followed by 24 letters or digits)' });

export interface ListWebhookEndpointsQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
}

export const listWebhookEndpointsQuerySchema = Joi.object<ListWebhookEndpointsQuery>({
  limit: Joi.number().integer().min(1).max(100).default(10),
  starting_after: endpointCursor(),
  ending_before: endpointCursor(),
});
