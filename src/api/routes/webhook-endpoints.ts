// Webhook endpoints (docs/webhooks.md, "Endpoints"): create, list, retrieve, update,
// delete, rotate the secret. Shape A only. Thin: parse, delegate, serialize.
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { webhookEndpointCreateIdentity, secretRotationIdentity } from '../../domain/idempotency';
import { normalizeEnabledEvents } from '../../domain/webhook-endpoints';
import { serializeDeletedWebhookEndpoint, serializeWebhookEndpoint } from '../../representations/webhook-endpoint';
import { isKnownVersion, DEFAULT_VERSION } from '../../representations/versions';
import type { Deps } from '../../services/context';
import { scopeOf } from '../../services/context';
import { WebhookEndpointService } from '../../services/webhook-endpoints';
import { destinationPolicy } from '../../webhooks/destination';
import { authOf, type AppContext, type AppRouter } from '../context';
import { authenticate } from '../middleware/authenticate';
import { requireCapability } from '../middleware/capability';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { resolveVersion } from '../middleware/version';
import { respondIdempotently } from '../respond';
import { route } from '../operations/operation';
import {
  createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, retrieveWebhookEndpoint, rotateWebhookEndpointSecret, updateWebhookEndpoint,
} from '../operations/webhook-endpoints';
import { checkListWindow, readJsonBody, readOptionalJsonBody, validateBody, validateQuery } from '../validation';

function endpointIdOf(ctx: AppContext): string {
  const id = ctx.params.id!;
  if (!isId('webhookEndpoint', id)) {
    throw new ApiError('invalid_request', { param: 'id', message: '`id` must be a webhook endpoint id (we_ followed by 24 letters or digits).' });
  }
  return id;
}

export function registerWebhookEndpointRoutes(router: AppRouter, deps: Deps): void {
  const service = new WebhookEndpointService(deps.dataSource, deps.secretBox, destinationPolicy(deps.config), { retrySpanMs: deps.config.webhookRetrySpanSeconds * 1000 });
  const auth = authenticate(deps);
  const manage = requireCapability('manage_webhooks');
  /** A saved create or rotation answer (an endpoint with its secret) is replayed only while that secret is current. */
  const secretReplayCheck = (ctx: AppContext) => (saved: unknown) => {
    const { id, secret } = saved as { id: string; secret: string };
    return service.checkSecretReplay(scopeOf(authOf(ctx)), id, secret);
  };

  route(router, createWebhookEndpoint, auth, resolveVersion('A'), manage, requireIdempotencyKey, async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(createWebhookEndpoint.requestBody.A.schema, body);
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
      identity: webhookEndpointCreateIdentity(input, request.api_version),
      objectKind: 'webhookEndpoint',
      // The answer holds the endpoint's secret: what is kept for replays is sealed, and replayed only
      // while that secret is the endpoint's current one.
      sealSavedBody: true,
      checkReplay: secretReplayCheck(ctx),
      create: async (id, retry) => {
        const { endpoint, secret } = await service.create(scopeOf(caller), input, id, retry);
        return { status: 201, body: serializeWebhookEndpoint(endpoint, secret) };
      },
    });
  });

  route(router, listWebhookEndpoints, auth, resolveVersion('A'), async (ctx) => {
    const query = validateQuery(listWebhookEndpoints.query.A, ctx.query);
    checkListWindow(query);
    const result = await service.list(scopeOf(authOf(ctx)), { limit: query.limit, startingAfter: query.starting_after, endingBefore: query.ending_before });
    if ('cursorNotFound' in result) {
      throw new ApiError('invalid_search_criteria', { param: result.cursorNotFound, message: `\`${result.cursorNotFound}\` is not a webhook endpoint of this account.` });
    }
    ctx.body = { object: 'list', data: result.rows.map((e) => serializeWebhookEndpoint(e)), has_more: result.hasMore, url: '/v1/webhook_endpoints' };
  });

  route(router, retrieveWebhookEndpoint, auth, resolveVersion('A'), async (ctx) => {
    const id = endpointIdOf(ctx);
    ctx.body = serializeWebhookEndpoint(await service.retrieve(scopeOf(authOf(ctx)), id));
  });

  route(router, updateWebhookEndpoint, auth, resolveVersion('A'), manage, async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(updateWebhookEndpoint.requestBody.A.schema, body);
    const id = endpointIdOf(ctx);
    const caller = authOf(ctx);
    if (request.url !== undefined) await service.checkUrl(request.url, caller.livemode);
    ctx.body = serializeWebhookEndpoint(await service.update(scopeOf(caller), id, {
      url: request.url, enabledEvents: request.enabled_events, description: request.description, status: request.status,
    }));
  });

  route(router, deleteWebhookEndpoint, auth, resolveVersion('A'), manage, async (ctx) => {
    const id = endpointIdOf(ctx);
    await service.delete(scopeOf(authOf(ctx)), id);
    ctx.body = serializeDeletedWebhookEndpoint(id);
  });

  // A rotation takes an Idempotency-Key as a create does: a retry after a lost answer must not
  // rotate twice (docs/webhooks.md, "Rotating a secret").
  route(router, rotateWebhookEndpointSecret, auth, resolveVersion('A'), manage, requireIdempotencyKey, async (ctx) => {
    const body = await readOptionalJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(rotateWebhookEndpointSecret.requestBody.A.schema, body);
    const id = endpointIdOf(ctx);
    const scope = scopeOf(authOf(ctx));
    await respondIdempotently(ctx, deps, {
      identity: secretRotationIdentity(id, request.grace_period_seconds),
      objectKind: 'webhookSecret',
      sealSavedBody: true,
      checkReplay: secretReplayCheck(ctx),
      create: async (secretId, retry) => {
        const { endpoint, secret } = await service.rotateSecret(scope, id, request.grace_period_seconds, secretId, retry);
        return { status: 200, body: serializeWebhookEndpoint(endpoint, secret) };
      },
    });
  });
}
