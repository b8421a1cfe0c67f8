// The Events API (docs/events.md): list, retrieve with deliveries and attempts, retry. Shape A only.
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { EventService } from '../../services/events';
import { authOf, type AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { authenticate } from '../middleware/authenticate';
import { resolveVersion } from '../middleware/version';
import { listEventsQuerySchema, retryEventSchema } from '../schemas/events';
import { serializeEvent, serializeEventDetail } from '../../representations/event';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { respondIdempotently } from '../respond';
import { readOptionalJsonBody, validateBody, validateQuery } from '../validation';

export function registerEventRoutes(router: AppRouter, deps: Deps): void {
  const service = new EventService(deps);
  const auth = authenticate(deps);

  router.get('listEvents', '/v1/events', auth, resolveVersion('A'), async (ctx) => {
    const query = validateQuery(listEventsQuerySchema, ctx.query);
    if (query.starting_after && query.ending_before) {
      throw new ApiError('invalid_search_criteria', { param: 'ending_before', message: '`starting_after` and `ending_before` cannot be used together.' });
    }
    const createdGte = query['created[gte]'];
    const createdLt = query['created[lt]'];
    if (createdGte !== undefined && createdLt !== undefined && createdGte > createdLt) {
      throw new ApiError('invalid_search_criteria', { param: 'created[lt]', message: '`created[lt]` must not be before `created[gte]`.' });
    }
    const result = await service.list(authOf(ctx), {
      limit: query.limit,
      startingAfter: query.starting_after,
      endingBefore: query.ending_before,
      types: query.type?.flat(),
      objectId: query.object_id,
      createdGte,
      createdLt,
      deliverySuccess: query.delivery_success,
    });
    if ('cursorNotFound' in result) {
      throw new ApiError('invalid_search_criteria', { param: result.cursorNotFound, message: `\`${result.cursorNotFound}\` is not an event of this account.` });
    }
    ctx.body = { object: 'list', data: result.data.map(serializeEvent), has_more: result.hasMore, url: '/v1/events' };
  });

  router.get('retrieveEvent', '/v1/events/:id', auth, resolveVersion('A'), async (ctx) => {
    const id = eventIdParam(ctx.params.id!);
    const detail = await service.find(authOf(ctx), id);
    if (!detail) throw new ApiError('object_not_found', { param: 'id', message: `No such event: ${id}.` });
    ctx.body = serializeEventDetail(detail.event, detail.deliveries);
  });

  router.post('retryEvent', '/v1/events/:id/retry', auth, resolveVersion('A'), requireIdempotencyKey, async (ctx) => {
    const request = validateBody(retryEventSchema, await readOptionalJsonBody(ctx, deps.config.maxBodyBytes));
    const id = eventIdParam(ctx.params.id!);
    const endpointId = request.webhook_endpoint_id;
    await respondIdempotently(ctx, deps, {
      operation: 'events.retry',
      objectKind: 'attempt',
      identity: { event_id: id, webhook_endpoint_id: endpointId },
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
