// The webhook endpoint operations (Shape A only; docs/webhooks.md, "Endpoints").
import {
  createWebhookEndpointSchema, listWebhookEndpointsQuerySchema, rotateWebhookSecretSchema, updateWebhookEndpointSchema,
} from '../schemas/webhook-endpoints';
import { operation } from './operation';

export const createWebhookEndpoint = operation({
  id: 'createWebhookEndpoint',
  method: 'post',
  path: '/v1/webhook_endpoints',
  tag: 'Webhook endpoints',
  summary: 'Create a webhook endpoint',
  description: 'Events of the key\'s mode whose type is in `enabled_events` (or every type, with `*`) are POSTed to `url`, signed with '
    + 'the endpoint\'s own secret. The answer is the only one, with a rotation\'s, that shows `secret`: keep it. In live mode the URL '
    + 'must resolve to public addresses; in test mode `http://localhost` and `http://127.0.0.1` are allowed too, but never a port of the '
    + 'service itself; in live mode only `https`. At most 16 endpoints per mode (more: `400 parameter_invalid`, param `url`), also '
    + 'under concurrent creates. A replay (same `Idempotency-Key`) answers the same bytes, secret included, only while that secret is '
    + 'current: once it was rotated away `409 idempotency_replay_unavailable`, once the endpoint is deleted `404 object_not_found`.',
  authenticated: true,
  create: true,
  shapes: ['A'],
  requestBody: { A: { component: 'WebhookEndpointRequest', schema: createWebhookEndpointSchema, examples: ['webhookEndpointRequest'] } },
  responses: [{ status: 201, description: 'The endpoint, with its secret.', json: { A: { component: 'WebhookEndpointWithSecret', examples: ['webhookEndpointCreated'] } } }],
});

export const listWebhookEndpoints = operation({
  id: 'listWebhookEndpoints',
  method: 'get',
  path: '/v1/webhook_endpoints',
  tag: 'Webhook endpoints',
  summary: 'List webhook endpoints',
  description: 'The endpoints of the key\'s mode, newest first. `starting_after` and `ending_before` cannot be combined.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  query: { A: listWebhookEndpointsQuerySchema },
  responses: [{ status: 200, description: 'One page of endpoints.', json: { A: { component: 'WebhookEndpointList', examples: ['webhookEndpointList'] } } }],
});

export const retrieveWebhookEndpoint = operation({
  id: 'retrieveWebhookEndpoint',
  method: 'get',
  path: '/v1/webhook_endpoints/{id}',
  tag: 'Webhook endpoints',
  summary: 'Retrieve a webhook endpoint',
  description: 'The endpoint, without its secret.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  pathParameter: 'WebhookEndpointId',
  responses: [{ status: 200, description: 'The endpoint.', json: { A: { component: 'WebhookEndpoint', examples: ['webhookEndpoint'] } } }],
});

export const updateWebhookEndpoint = operation({
  id: 'updateWebhookEndpoint',
  method: 'post',
  path: '/v1/webhook_endpoints/{id}',
  tag: 'Webhook endpoints',
  summary: 'Update a webhook endpoint',
  description: 'Changes any of `url`, `enabled_events`, `description` and `status`; fields left out stay. A `disabled` endpoint gets no new '
    + 'deliveries and its pending retries stop. The URL rules are the create\'s. `api_version` is fixed at creation: create a new '
    + 'endpoint to move to another version.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  pathParameter: 'WebhookEndpointId',
  requestBody: { A: { component: 'WebhookEndpointUpdateRequest', schema: updateWebhookEndpointSchema, examples: ['webhookEndpointUpdateRequest'] } },
  responses: [{ status: 200, description: 'The endpoint, updated.', json: { A: { component: 'WebhookEndpoint', examples: ['webhookEndpointDisabled'] } } }],
});

export const deleteWebhookEndpoint = operation({
  id: 'deleteWebhookEndpoint',
  method: 'delete',
  path: '/v1/webhook_endpoints/{id}',
  tag: 'Webhook endpoints',
  summary: 'Delete a webhook endpoint',
  description: 'The endpoint gets no more deliveries and its pending retries stop. Events already sent keep naming it.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  pathParameter: 'WebhookEndpointId',
  responses: [{ status: 200, description: 'Deleted.', json: { A: { component: 'DeletedWebhookEndpoint', examples: ['webhookEndpointDeleted'] } } }],
});

export const rotateWebhookEndpointSecret = operation({
  id: 'rotateWebhookEndpointSecret',
  method: 'post',
  path: '/v1/webhook_endpoints/{id}/rotate_secret',
  tag: 'Webhook endpoints',
  summary: 'Rotate a webhook endpoint\'s secret',
  description: 'A new secret, shown in this answer only. Until `grace_period_seconds` have passed (default a day, at most seven) every '
    + 'delivery carries two `v1,` signatures, one per secret, so receivers can switch without missing an event. A rotation with `0` '
    + 'retires the older secrets at once. `Idempotency-Key` required, as for a create: a retry with the same key answers the same '
    + 'secret instead of rotating again, while that secret is current (once rotated away: `409 idempotency_replay_unavailable`; '
    + 'once the endpoint is deleted: `404 object_not_found`).',
  authenticated: true,
  create: true,
  shapes: ['A'],
  pathParameter: 'WebhookEndpointId',
  requestBody: { A: { component: 'RotateWebhookSecretRequest', schema: rotateWebhookSecretSchema, examples: ['rotateWebhookSecretRequest'] } },
  requestBodyOptional: true,
  responses: [{ status: 200, description: 'The endpoint, with its new secret.', json: { A: { component: 'WebhookEndpointWithSecret', examples: ['webhookEndpointRotated'] } } }],
});
