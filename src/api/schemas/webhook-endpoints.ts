// Request schemas of the webhook endpoint operations (docs/webhooks.md, "Endpoints"). Whether a
// URL may receive the mode's events (the destination policy, a DNS look-up in live mode) is checked
// by the route right after these, with the same `parameter_invalid` on `url`.
import Joi from 'joi';
import { EVENT_TYPES } from '../../domain/events';
import { isId } from '../../domain/ids';
import { ALL_EVENTS, MAX_ENDPOINT_DESCRIPTION, MAX_ENDPOINT_URL, MAX_ROTATION_GRACE_SECONDS, DEFAULT_ROTATION_GRACE_SECONDS } from '../../domain/webhook-endpoints';
import { KNOWN_VERSIONS } from '../../representations/versions';
import type { WebhookEndpointStatus } from '../../domain/webhook-endpoints';
import { documented, pageLimit, text } from './common';

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
}).meta(documented({ maxLength: MAX_ENDPOINT_URL, format: 'uri' }))
  .messages({ 'any.invalid': '{{#label}} must be an absolute http or https URL' })
  .description('Absolute `http` or `https` URL without credentials, at most 2048 characters. Live mode: it must resolve to public '
    + 'addresses only. Test mode: public addresses, `localhost` and `127.0.0.1` too, but never a port of the service itself. Refused: '
    + '`400 parameter_invalid`, param `url`.');

const MAX_ENABLED_EVENTS = 50;

const enabledEvents = () => Joi.array().min(1).max(MAX_ENABLED_EVENTS).items(Joi.string().valid(...EVENT_TYPES, ALL_EVENTS))
  .messages({ 'array.min': '{{#label}} must name at least one event type, or *', 'any.only': '{{#label}} must be an event type (such as payment.succeeded) or *' })
  .description('Non-empty: event types, or `*` for every type, including types added later.');

const description = () => text(MAX_ENDPOINT_DESCRIPTION).allow(null).description('Your note on the endpoint; `null` clears it.');

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
  api_version: Joi.string().valid(...KNOWN_VERSIONS)
    .messages({ 'any.only': `{{#label}} must be a known Service-Version (${KNOWN_VERSIONS.join(' or ')})` })
    .description('The body\'s shape: `2025-09-01` the Shape A snapshot; `2024-06-01` the Shape B payment for payment events (refund and '
      + 'payout events have one shape). Default: the account\'s default version.'),
}).required().description('Where to send which events.');

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
  status: Joi.string().valid('enabled', 'disabled')
    .description('`disabled`: no new deliveries, and pending retries stop. `enabled`: deliveries resume with the next event.'),
}).required().description('The fields to change; the others stay.');

export interface RotateWebhookSecretRequest {
  grace_period_seconds: number;
}

export const rotateWebhookSecretSchema = Joi.object<RotateWebhookSecretRequest>({
  grace_period_seconds: Joi.number().integer().min(0).max(MAX_ROTATION_GRACE_SECONDS).default(DEFAULT_ROTATION_GRACE_SECONDS)
    .description('How long the current secrets keep signing next to the new one. Default 86400 (a day).'),
}).required().description('How long the older secrets stay valid.');

const endpointCursor = () => Joi.string().custom((value: string, helpers) => (isId('webhookEndpoint', value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be a webhook endpoint id (we_ followed by 24 letters or digits)' });

export interface ListWebhookEndpointsQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
}

export const listWebhookEndpointsQuerySchema = Joi.object<ListWebhookEndpointsQuery>({
  limit: pageLimit(),
  starting_after: endpointCursor().description('Webhook endpoint id: the page after it (newer-to-older order). Not with `ending_before`.'),
  ending_before: endpointCursor().description('Webhook endpoint id: the page before it. Not with `starting_after`.'),
});
