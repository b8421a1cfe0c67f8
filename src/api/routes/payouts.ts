// Payout operations (docs/api-reference.md, "Payouts" and "Lists"): submit, retrieve and list.
// Shape A only. Thin: parse, delegate, serialize.
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { PayoutService } from '../../services/payouts';
import { authOf, type AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { authenticate } from '../middleware/authenticate';
import { requireCapability } from '../middleware/capability';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { resolveVersion } from '../middleware/version';
import { respondIdempotently } from '../respond';
import { payoutListQuery, type ListPayoutsQuery } from '../schemas/payouts';
import { route } from '../operations/operation';
import { createPayout, listPayouts, retrievePayout } from '../operations/payouts';
import { serializePayout } from '../../representations/payout';
import { checkListWindow, readJsonBody, validateBody, validateQuery } from '../validation';

export function registerPayoutRoutes(router: AppRouter, deps: Deps): void {
  const service = new PayoutService(deps);
  const auth = authenticate(deps);

  route(router, createPayout, auth, resolveVersion('A'), requireCapability('submit_payouts'), requireIdempotencyKey, async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(createPayout.requestBody.A.schema, body);
    await respondIdempotently(ctx, deps, {
      identity: service.identity(request),
      objectKind: 'payout',
      create: async (payoutId, retry) => {
        const payout = await service.submit(authOf(ctx), {
          amount: request.amount,
          currency: request.currency,
          initiatorIpAddress: request.initiator_ip_address,
          recipient: request.recipient,
          cardNumber: request.destination.card_number,
          merchantReference: request.merchant_reference ?? null,
        }, payoutId, retry);
        return { status: 201, body: serializePayout(payout) };
      },
    });
  });

  route(router, listPayouts, auth, resolveVersion('A'), async (ctx) => {
    const query = validateQuery(listPayouts.query.A, ctx.query);
    assertCombinable(query);
    const result = await service.list(authOf(ctx), payoutListQuery(query));
    if ('cursorNotFound' in result) {
      throw new ApiError('invalid_search_criteria', { param: result.cursorNotFound, message: `\`${result.cursorNotFound}\` is not a Payout of this account.` });
    }
    ctx.body = {
      object: 'list',
      data: result.data.map(serializePayout),
      has_more: result.hasMore,
      total_count: result.totalCount,
      url: '/v1/payouts',
    };
  });

  route(router, retrievePayout, auth, resolveVersion('A'), async (ctx) => {
    const id = ctx.params.payout_id!;
    if (!isId('payout', id)) {
      throw new ApiError('invalid_request', { param: 'payout_id', message: '`payout_id` must be a Payout id (po_ followed by 24 letters or digits).' });
    }
    // The read model only: retrieving a Payout never advances it.
    const payout = await service.find(authOf(ctx), id);
    if (!payout) throw new ApiError('object_not_found', { param: 'payout_id', message: `No such payout: ${id}.` });
    ctx.body = serializePayout(payout);
  });
}

function assertCombinable(query: ListPayoutsQuery): void {
  checkListWindow(query);
  const amountGte = query['amount[gte]'];
  const amountLte = query['amount[lte]'];
  if (amountGte !== undefined && amountLte !== undefined && amountGte > amountLte) {
    throw new ApiError('invalid_search_criteria', { param: 'amount[lte]', message: '`amount[lte]` must not be below `amount[gte]`.' });
  }
}
