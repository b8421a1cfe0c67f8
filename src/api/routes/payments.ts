// Payment operations: create (Direct and Hosted), retrieve and list. Thin: parse, delegate, serialize.
import { ApiError } from '../../domain/errors';
import type { IntegrationType } from '../../domain/payment';
import { PaymentService } from '../../services/payments';
import { authOf, type AppContext, type AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { authenticate } from '../middleware/authenticate';
import { requireCapability } from '../middleware/capability';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { resolveVersion } from '../middleware/version';
import { PAYMENT_SHAPES } from '../../representations/payment-shapes';
import { respondIdempotently } from '../respond';
import { directPaymentSchemaA, hostedPaymentSchemaA, listPaymentsQuerySchema, type DirectPaymentRequestA, type HostedPaymentRequestA } from '../schemas/payments';
import { serializePaymentA } from '../../representations/payment-a';
import { shapeBPaymentHandlers } from './payments-shape-b';
import { readJsonBody, validateBody, validateQuery } from '../validation';

/** The fields both Shape A creates share; Direct adds the card. */
type PaymentRequestA = HostedPaymentRequestA & Partial<Pick<DirectPaymentRequestA, 'payment_method_data'>>;

export function registerPaymentRoutes(router: AppRouter, deps: Deps): void {
  const service = new PaymentService(deps);
  const auth = authenticate(deps);
  const shapeB = shapeBPaymentHandlers(deps);

  /**
   * One Shape A create for both integration types: only the identity's currency differs
   * (docs/api-reference.md, "Idempotency").
   */
  async function createPaymentA(ctx: AppContext, integrationType: IntegrationType, request: PaymentRequestA): Promise<void> {
    const direct = integrationType === 'DIRECT';
    await respondIdempotently(ctx, deps, {
      operation: direct ? 'payments.create' : 'payments.create_hosted',
      objectKind: 'payment',
      // Card fields are never part of the identity: a card-only change replays the original.
      identity: {
        amount: request.amount,
        // Direct: the currency text as submitted; Hosted: normalized (trimmed, uppercased).
        currency: direct ? request.currency : request.currency.trim().toUpperCase(),
        billing_details: request.billing_details,
        customer_ip_address: request.customer_ip_address,
        description: request.description,
        merchant_customer_id: request.merchant_customer_id,
        merchant_reference: request.merchant_reference,
        return_url: request.return_url,
      },
      create: async (paymentId, retry) => {
        const payment = await service.create(authOf(ctx), {
          integrationType,
          amount: request.amount,
          currency: request.currency,
          merchantReference: request.merchant_reference ?? null,
          description: request.description ?? null,
          billingDetails: request.billing_details ?? null,
          customerIpAddress: request.customer_ip_address,
          merchantCustomerId: request.merchant_customer_id ?? null,
          returnUrl: request.return_url,
          apiVersion: ctx.state.version,
          card: request.payment_method_data?.card,
        }, paymentId, retry);
        return { status: 201, body: serializePaymentA(payment) };
      },
    });
  }

  router.post('createPayment', '/v1/payments', auth, resolveVersion(), requireCapability('accept_payments'), requireIdempotencyKey, async (ctx) => {
    if (ctx.state.shape === 'B') return shapeB.createDirect(ctx);
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    await createPaymentA(ctx, 'DIRECT', validateBody(directPaymentSchemaA, body, { livemode: authOf(ctx).livemode }));
  });

  router.post('createHostedPayment', '/v1/payments/hpp', auth, resolveVersion(), requireCapability('accept_payments'), requireIdempotencyKey, async (ctx) => {
    if (ctx.state.shape === 'B') return shapeB.createHosted(ctx);
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    await createPaymentA(ctx, 'HOSTED_PAYMENT_PAGE', validateBody(hostedPaymentSchemaA, body, { livemode: authOf(ctx).livemode }));
  });

  router.get('retrievePayment', '/v1/payments/:id', auth, resolveVersion(), async (ctx) => {
    const id = ctx.params.id!;
    const shape = PAYMENT_SHAPES[ctx.state.shape];
    if (!shape.isPaymentId(id)) throw new ApiError('invalid_request', { param: 'id', message: `\`id\` must be a Payment id (${shape.paymentIdRule}).` });
    const payment = await service.find(authOf(ctx), id);
    if (!payment) throw new ApiError('object_not_found', { param: 'id', message: `No such payment: ${id}.` });
    ctx.body = shape.serialize(payment);
  });

  router.get('listPayments', '/v1/payments', auth, resolveVersion(), async (ctx) => {
    const query = validateQuery(listPaymentsQuerySchema, ctx.query);
    if (query.starting_after && query.ending_before) {
      throw new ApiError('invalid_search_criteria', { param: 'ending_before', message: '`starting_after` and `ending_before` cannot be used together.' });
    }
    const shape = PAYMENT_SHAPES[ctx.state.shape];
    const statusFilters = ([] as string[]).concat(query.status ?? []).map((value) => {
      const filter = shape.statusFilter(value);
      if (!filter) throw new ApiError('invalid_search_criteria', { param: 'status', message: `\`status\` must be one of ${shape.statusValues.join(', ')}.` });
      return filter;
    });
    const result = await service.list(authOf(ctx), {
      limit: query.limit,
      startingAfter: query.starting_after,
      endingBefore: query.ending_before,
      statusFilters,
      createdGte: query['created[gte]'],
      createdLt: query['created[lt]'],
    });
    if ('cursorNotFound' in result) {
      throw new ApiError('invalid_search_criteria', { param: result.cursorNotFound, message: `\`${result.cursorNotFound}\` is not a Payment of this account.` });
    }
    ctx.body = { object: 'list', data: result.data.map((payment) => shape.serialize(payment)), has_more: result.hasMore, url: '/v1/payments' };
  });
}
