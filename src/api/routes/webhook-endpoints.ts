// Webhook endpoints (docs/webhooks.md, "Endpoints"): create, list, retrieve, update,
// delete, rotate the secret. Shape A only. Thin: parse, delegate, serialize.
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { normalizeEnabledEvents } from '../../domain/webhook-endpoints';
import { serializeDeletedWebhookEndpoint, serializeWebhookEndpoint } from '../../representations/webhook-endpoint';
import { isKnownVersion, DEFAULT_VERSION } from '../../representations/versions';
import type { Deps } from '../../services/context';
import { scopeOf } from '../../services/context';
import { WebhookEndpointService } from '../../services/webhook-endpoints';
import { destinationPolicy } from '../../webhooks/destination';
import { authOf, type AppContext, type AppRouter } from '../context';
import { authenticate } from '../middleware/authenticate';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { resolveVersion } from '../middleware/version';
import { respondIdempotently } from '../respond';
import {
  createWebhookEndpointSchema, listWebhookEndpointsQuerySchema, rotateWebhookSecretSchema, updateWebhookEndpointSchema,
} from '../schemas/webhook-endpoints';
import { readJsonBody, readOptionalJsonBody, validateBody, validateQuery } from '../validation';

function endpointIdOf(ctx: AppContext): string {
  const id = ctx.params.id!;
  if (!isId('webhookEndpoint', id)) {
    throw new ApiError('invalid_request', { param: 'id', message: '`id` must be a webhook endpoint id (we_ followed by 24 letters or digits).' });
  }
  return id;
}

export function registerWebhookEndpointRoutes(router: AppRouter, deps: Deps): void {
  const service = new WebhookEndpointService(deps.dataSource, deps.secretBox, destinationPolicy(deps.config));
  const auth = authenticate(deps);

  router.post('createWebhookEndpoint', '/v1/webhook_endpoints', auth, resolveVersion('A'), requireIdempotencyKey, async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(createWebhookEndpointSchema, body);
    const caller = authOf(ctx);
    await service.checkUrl(request.url, caller.livemode);
    const defaultVersion = caller.merchant.default_version;
    const input = {
      url: request.url,
      enabledEvents: normalizeEnabledEvents(request.enabled_events),
      description: request.description ?? null,
      apiVersion: request.api_version ?? (isKnownVersion(defaultVersion) ? defaultVersion : DEFAULT_VERSION),
    };
    await respondIdempotently(ctx, deps, {
      operation: 'webhook_endpoints.create',
      objectKind: 'webhookEndpoint',
      identity: { url: input.url, enabled_events: input.enabledEvents, description: input.description, api_version: request.api_version },
      // The answer holds the endpoint's secret: what is kept for replays is sealed.
      sealSavedBody: true,
      create: async (id, retry) => {
        const { endpoint, secret } = await service.create(scopeOf(caller), input, id, retry);
        return { status: 201, body: serializeWebhookEndpoint(endpoint, secret) };
      },
    });
  });

  router.get('listWebhookEndpoints', '/v1/webhook_endpoints', auth, resolveVersion('A'), async (ctx) => {
    const query = validateQuery(listWebhookEndpointsQuerySchema, ctx.query);
    if (query.starting_after !== undefined && query.ending_before !== undefined) {
      throw new ApiError('invalid_search_criteria', { param: 'ending_before', message: '`starting_after` and `ending_before` cannot be used together.' });
    }
    const result = await service.list(scopeOf(authOf(ctx)), { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before });
    if ('cursorNotFound' in result) {
      throw new ApiError('invalid_search_criteria', { param: result.cursorNotFound, message: `\`${result.cursorNotFound}\` is not a webhook endpoint of this account.` });
    }
    ctx.body = { object: 'list', data: result.rows.map((e) => serializeWebhookEndpoint(e)), has_more: result.hasMore, url: '/v1/webhook_endpoints' };
  });

  router.get('retrieveWebhookEndpoint', '/v1/webhook_endpoints/:id', auth, resolveVersion('A'), async (ctx) => {
    const id = endpointIdOf(ctx);
    ctx.body = serializeWebhookEndpoint(await service.retrieve(scopeOf(authOf(ctx)), id));
  });

  router.post('updateWebhookEndpoint', '/v1/webhook_endpoints/:id', auth, resolveVersion('A'), async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(updateWebhookEndpointSchema, body);
    const id = endpointIdOf(ctx);
    const caller = authOf(ctx);
    if (request.url !== undefined) await service.checkUrl(request.url, caller.livemode);
    ctx.body = serializeWebhookEndpoint(await service.update(scopeOf(caller), id, {
      url: request.url, enabledEvents: request.enabled_events, description: request.description, status: request.status,
    }));
  });

  router.delete('deleteWebhookEndpoint', '/v1/webhook_endpoints/:id', auth, resolveVersion('A'), async (ctx) => {
    const id = endpointIdOf(ctx);
    await service.delete(scopeOf(authOf(ctx)), id);
    ctx.body = serializeDeletedWebhookEndpoint(id);
  });

  router.post('rotateWebhookEndpointSecret', '/v1/webhook_endpoints/:id/rotate_secret', auth, resolveVersion('A'), async (ctx) => {
    const body = await readOptionalJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(rotateWebhookSecretSchema, body);
    const id = endpointIdOf(ctx);
    const { endpoint, secret } = await service.rotateSecret(scopeOf(authOf(ctx)), id, request.grace_period_seconds);
    ctx.body = serializeWebhookEndpoint(endpoint, secret);
  });
}
