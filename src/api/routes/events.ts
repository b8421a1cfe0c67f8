// The Events API (docs/events.md): list, retrieve with deliveries and attempts, retry. Shape A only.
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { eventRetryIdentity } from '../../domain/idempotency';
import { EventService } from '../../services/events';
import { authOf, type AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { authenticate } from '../middleware/authenticate';
import { requireCapability } from '../middleware/capability';
import { resolveVersion } from '../middleware/version';
import { route } from '../operations/operation';
import { listEvents, retrieveEvent, retryEvent } from '../operations/events';
import { serializeEvent, serializeEventDetail } from '../../representations/event';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { respondIdempotently } from '../respond';
import { checkListWindow, readOptionalJsonBody, validateBody, validateQuery } from '../validation';

export function registerEventRoutes(router: AppRouter, deps: Deps): void {
  const service = new EventService(deps);
  const auth = authenticate(deps);

  route(router, listEvents, auth, resolveVersion('A'), async (ctx) => {
    const query = validateQuery(listEvents.query.A, ctx.query);
    checkListWindow(query);
    const result = await service.list(authOf(ctx), {
      limit: query.limit,
      startingAfter: query.starting_after,
      endingBefore: query.ending_before,
      types: query.type?.flat(),
      objectId: query.object_id,
      createdGte: query['created[gte]'],
      createdLt: query['created[lt]'],
      deliverySuccess: query.delivery_success,
    });
    if ('cursorNotFound' in result) {
      throw new ApiError('invalid_search_criteria', { param: result.cursorNotFound, message: `\`${result.cursorNotFound}\` is not an event of this account.` });
    }
    ctx.body = { object: 'list', data: result.data.map(serializeEvent), has_more: result.hasMore, url: '/v1/events' };
  });

  route(router, retrieveEvent, auth, resolveVersion('A'), async (ctx) => {
    const id = eventIdParam(ctx.params.id!);
    const detail = await service.find(authOf(ctx), id);
    if (!detail) throw new ApiError('object_not_found', { param: 'id', message: `No such event: ${id}.` });
    ctx.body = serializeEventDetail(detail.event, detail.deliveries);
  });

  route(router, retryEvent, auth, resolveVersion('A'), requireCapability('manage_webhooks'), requireIdempotencyKey, async (ctx) => {
    const request = validateBody(retryEvent.requestBody.A.schema, await readOptionalJsonBody(ctx, deps.config.maxBodyBytes));
    const id = eventIdParam(ctx.params.id!);
    const endpointId = request.webhook_endpoint_id;
    await respondIdempotently(ctx, deps, {
      identity: eventRetryIdentity(id, endpointId),
      objectKind: 'attempt',
      create: async () => {
        const result = await service.retry(authOf(ctx), id, endpointId);
        if ('notFound' in result) {
          throw new ApiError('object_not_found', result.notFound === 'id'
            ? { param: 'id', message: `No such event: ${id}.` }
            : { param: 'webhook_endpoint_id', message: `Event ${id} was not sent to webhook endpoint ${endpointId}.` });
        }
        return { status: 200, body: serializeEventDetail(result.event, result.deliveries) };
      },
    });
  });
}

function eventIdParam(id: string): string {
  if (!isId('event', id)) throw new ApiError('invalid_request', { param: 'id', message: '`id` must be an event id (evt_ followed by 24 letters or digits).' });
  return id;
}
