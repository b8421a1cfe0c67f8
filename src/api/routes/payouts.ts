// Payout operations (docs/api-reference.md, "Payouts" and "Lists"): submit, retrieve and list.
// Shape A only. Thin: parse, delegate, serialize.
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { normalizeCurrency } from '../../domain/money';
import { parsePayoutSearch } from '../../domain/payout-search';
import { canonicalIp, destinationDigest, PayoutService, type PayoutListQuery } from '../../services/payouts';
import { authOf, type AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { authenticate } from '../middleware/authenticate';
import { requireCapability } from '../middleware/capability';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { resolveVersion } from '../middleware/version';
import { respondIdempotently } from '../respond';
import { createPayoutSchema, listPayoutsQuerySchema, type ListPayoutsQuery } from '../schemas/payouts';
import { serializePayout } from '../../representations/payout';
import { readJsonBody, validateBody, validateQuery } from '../validation';

/** The read model's list query for a validated `GET /v1/payouts` query string. */
export function payoutListQuery(query: ListPayoutsQuery): PayoutListQuery {
  const currencies = query.currency ?? [];
  return {
    limit: query.limit,
    startingAfter: query.starting_after,
    endingBefore: query.ending_before,
    filters: {
      statuses: query.status ?? [],
      currencies,
      brands: query.card_brand ?? [],
      last4: query.card_last4,
      createdGte: query['created[gte]'],
      createdLt: query['created[lt]'],
      amountGte: query['amount[gte]'],
      amountLte: query['amount[lte]'],
      search: query.search === undefined ? undefined : parsePayoutSearch(query.search, currencies),
    },
  };
}

export function registerPayoutRoutes(router: AppRouter, deps: Deps): void {
  const service = new PayoutService(deps);
  const auth = authenticate(deps);

  router.post('createPayout', '/v1/payouts', auth, resolveVersion('A'), requireCapability('submit_payouts'), requireIdempotencyKey, async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(createPayoutSchema, body);
    const recipientCountry = request.recipient.country.toUpperCase();
    await respondIdempotently(ctx, deps, {
      operation: 'payouts.create',
      objectKind: 'payout',
      // Parsed values (docs/api-reference.md, "Idempotency"), so `2001:DB8::1` and
      // `2001:db8:0:0:0:0:0:1`, or `es` and `ES`, are one request.
      identity: {
        amount: request.amount,
        currency: normalizeCurrency(request.currency),
        initiator_ip_address: canonicalIp(request.initiator_ip_address),
        recipient: { first_name: request.recipient.first_name, last_name: request.recipient.last_name, country: recipientCountry },
        destination: { card_number: destinationDigest(deps.config.vaultKeyHex, request.destination.card_number) },
        merchant_reference: request.merchant_reference,
      },
      create: async (payoutId, retry) => {
        const payout = await service.submit(authOf(ctx), {
          amount: request.amount,
          currency: request.currency,
          initiatorIpAddress: request.initiator_ip_address,
          recipient: { ...request.recipient, country: recipientCountry },
          cardNumber: request.destination.card_number,
          merchantReference: request.merchant_reference ?? null,
        }, payoutId, retry);
        return { status: 201, body: serializePayout(payout) };
      },
    });
  });

  router.get('listPayouts', '/v1/payouts', auth, resolveVersion('A'), async (ctx) => {
    const query = validateQuery(listPayoutsQuerySchema, ctx.query);
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

  router.get('retrievePayout', '/v1/payouts/:payout_id', auth, resolveVersion('A'), async (ctx) => {
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
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw new ApiError('invalid_search_criteria', { param: 'ending_before', message: '`starting_after` and `ending_before` cannot be used together.' });
  }
  const createdGte = query['created[gte]'];
  const createdLt = query['created[lt]'];
  if (createdGte !== undefined && createdLt !== undefined && createdGte > createdLt) {
    throw new ApiError('invalid_search_criteria', { param: 'created[lt]', message: '`created[lt]` must not be before `created[gte]`.' });
  }
  const amountGte = query['amount[gte]'];
  const amountLte = query['amount[lte]'];
  if (amountGte !== undefined && amountLte !== undefined && amountGte > amountLte) {
    throw new ApiError('invalid_search_criteria', { param: 'amount[lte]', message: '`amount[lte]` must not be below `amount[gte]`.' });
  }
}
