// Payment operations: create (Direct and Hosted), retrieve and list. Thin: parse, delegate, serialize.
import { ApiError } from '../../domain/errors';
import { paymentCreateIdentity } from '../../domain/idempotency';
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
import type { DirectPaymentRequestA, HostedPaymentRequestA } from '../schemas/payments';
import { route } from '../operations/operation';
import { createHostedPayment, createPayment, listPayments, retrievePayment } from '../operations/payments';
import { serializePaymentA } from '../../representations/payment-a';
import { shapeBPaymentHandlers } from './payments-shape-b';
import { checkListWindow, readJsonBody, validateBody, validateQuery } from '../validation';

/** The fields both Shape A creates share; Direct adds the card. */
type PaymentRequestA = HostedPaymentRequestA & Partial<Pick<DirectPaymentRequestA, 'payment_method_data'>>;

export function registerPaymentRoutes(router: AppRouter, deps: Deps): void {
  const service = new PaymentService(deps);
  const auth = authenticate(deps);
  const shapeB = shapeBPaymentHandlers(deps);

  /** One Shape A create for both integration types (their identities: src/domain/idempotency.ts). */
  async function createPaymentA(ctx: AppContext, integrationType: IntegrationType, request: PaymentRequestA): Promise<void> {
    const direct = integrationType === 'DIRECT';
    await respondIdempotently(ctx, deps, {
      identity: paymentCreateIdentity(integrationType, request),
      objectKind: 'payment',
      // A hosted answer holds the page URL, whose token the database keeps only hashed or sealed.
      sealSavedBody: !direct,
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

  route(router, createPayment, auth, resolveVersion(), requireCapability('accept_payments'), requireIdempotencyKey, async (ctx) => {
    if (ctx.state.shape === 'B') return shapeB.createDirect(ctx);
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    await createPaymentA(ctx, 'DIRECT', validateBody(createPayment.requestBody.A.schema, body, { livemode: authOf(ctx).livemode }));
  });

  route(router, createHostedPayment, auth, resolveVersion(), requireCapability('accept_payments'), requireIdempotencyKey, async (ctx) => {
    if (ctx.state.shape === 'B') return shapeB.createHosted(ctx);
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    await createPaymentA(ctx, 'HOSTED_PAYMENT_PAGE', validateBody(createHostedPayment.requestBody.A.schema, body, { livemode: authOf(ctx).livemode }));
  });

  route(router, retrievePayment, auth, resolveVersion(), async (ctx) => {
    const id = ctx.params.id!;
    const shape = PAYMENT_SHAPES[ctx.state.shape];
    if (!shape.isPaymentId(id)) throw new ApiError('invalid_request', { param: 'id', message: `\`id\` must be a Payment id (${shape.paymentIdRule}).` });
    const payment = await service.find(authOf(ctx), id);
    if (!payment) throw new ApiError('object_not_found', { param: 'id', message: `No such payment: ${id}.` });
    ctx.body = shape.serialize(payment);
  });

  route(router, listPayments, auth, resolveVersion(), async (ctx) => {
    const query = validateQuery(listPayments.query[ctx.state.shape], ctx.query);
    checkListWindow({ starting_after: query.starting_after, ending_before: query.ending_before });
    const shape = PAYMENT_SHAPES[ctx.state.shape];
    const result = await service.list(authOf(ctx), {
      limit: query.limit,
      startingAfter: query.starting_after,
      endingBefore: query.ending_before,
      statusFilters: query.status ?? [],
      createdGte: query['created[gte]'],
      createdLt: query['created[lt]'],
    });
    if ('cursorNotFound' in result) {
      throw new ApiError('invalid_search_criteria', { param: result.cursorNotFound, message: `\`${result.cursorNotFound}\` is not a Payment of this account.` });
    }
    ctx.body = { object: 'list', data: result.data.map((payment) => shape.serialize(payment)), has_more: result.hasMore, url: '/v1/payments' };
  });
}
