// Shape B (Service-Version 2024-06-01) Payment creates and the Shape B refund (docs/shape-b.md).
// Thin: parse, delegate, serialize. The creates are
// reached from the shared payment routes when the request's shape is B; the refund is Shape B only.
import { ApiError } from '../../domain/errors';
import { shapeBDirectCreateIdentity, shapeBHostedCreateIdentity, shapeBRefundIdentity } from '../../domain/idempotency';
import type { BillingDetails, PaymentView } from '../../domain/payment';
import { declineOf } from '../../domain/payment-shape-b';
import { ShapeBPaymentService } from '../../services/shape-b-payments';
import { authOf, type AppContext, type AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { authenticate } from '../middleware/authenticate';
import { requireCapability } from '../middleware/capability';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { resolveVersion } from '../middleware/version';
import { PAYMENT_SHAPES } from '../../representations/payment-shapes';
import { respondIdempotently } from '../respond';
import type { CustomerB } from '../schemas/payments-shape-b';
import { route } from '../operations/operation';
import { createHostedPayment, createPayment, refundPaymentB } from '../operations/payments';
import { serializePaymentB } from '../../representations/payment-b';
import { readEmptyJsonBody, readJsonBody, validateBody } from '../validation';

export interface ShapeBPaymentHandlers {
  createDirect(ctx: AppContext): Promise<void>;
  createHosted(ctx: AppContext): Promise<void>;
}

/** A Shape B create answers the outcome: a declined card is a `402 card_declined`, not a FAILED payment. */
function answerDirect(payment: PaymentView): { status: number; body: unknown } {
  if (payment.status === 'FAILED' || payment.status === 'EXPIRED') {
    const decline = declineOf(payment.failure_code);
    throw new ApiError('card_declined', { declineCode: decline.code, message: decline.message });
  }
  return { status: 201, body: serializePaymentB(payment) };
}

/** Shape B's flat customer fills the hosted form the way Shape A's billing details do. */
function billingFromCustomer(customer: CustomerB | null | undefined): BillingDetails | null {
  if (!customer) return null;
  const hasAddress = [customer.address, customer.city, customer.zip, customer.country].some((part) => part != null);
  return {
    email: customer.email ?? null,
    first_name: customer.first_name ?? null,
    last_name: customer.last_name ?? null,
    phone: customer.phone ?? null,
    address: hasAddress
      ? { line1: customer.address ?? null, city: customer.city ?? null, postal_code: customer.zip ?? null, country: customer.country ?? null }
      : null,
  };
}

export function shapeBPaymentHandlers(deps: Deps): ShapeBPaymentHandlers {
  const service = new ShapeBPaymentService(deps);
  const retentionSeconds = deps.config.shapeBIdempotencyTtlSeconds;

  return {
    async createDirect(ctx) {
      const auth = authOf(ctx);
      const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
      const request = validateBody(createPayment.requestBody.B.schema, body, { livemode: auth.livemode });
      await respondIdempotently(ctx, deps, {
        identity: shapeBDirectCreateIdentity(request),
        objectKind: 'payment',
        retentionSeconds,
        create: async (paymentId, retry) => answerDirect(await service.createDirect(auth, {
          amount: request.amount,
          currency: request.currency,
          card: request.card,
        }, paymentId, retry)),
      });
    },

    async createHosted(ctx) {
      const auth = authOf(ctx);
      const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
      const request = validateBody(createHostedPayment.requestBody.B.schema, body, { livemode: auth.livemode });
      // With the body's other checks, before the idempotency key is claimed.
      service.checkCallbackUrl(request.callback_url, auth.livemode);
      await respondIdempotently(ctx, deps, {
        identity: shapeBHostedCreateIdentity(request),
        objectKind: 'payment',
        retentionSeconds,
        // The answer holds the page URL, whose token the database keeps only hashed or sealed.
        sealSavedBody: true,
        create: async (paymentId, retry) => {
          const payment = await service.createHosted(auth, {
            integrationType: 'HOSTED_PAYMENT_PAGE',
            amount: request.amount,
            currency: request.currency,
            merchantReference: null,
            description: request.description ?? null,
            billingDetails: billingFromCustomer(request.customer),
            customerIpAddress: null,
            merchantCustomerId: null,
            returnUrl: request.redirect_url,
            metadata: request.metadata ?? null,
            customer: request.customer ? { ...request.customer } : null,
            callbackUrl: request.callback_url ?? null,
          }, paymentId, retry);
          return { status: 201, body: serializePaymentB(payment) };
        },
      });
    },
  };
}

/** `POST /v1/payments/{id}/refund`: always Shape B, a full refund of what remains. */
export function registerShapeBRefundRoute(router: AppRouter, deps: Deps): void {
  const service = new ShapeBPaymentService(deps);

  route(router, refundPaymentB, authenticate(deps), resolveVersion('B'), requireCapability('create_refunds'), requireIdempotencyKey, async (ctx) => {
    await readEmptyJsonBody(ctx, deps.config.maxBodyBytes);
    const id = ctx.params.id!;
    if (!PAYMENT_SHAPES.B.isPaymentId(id)) {
      throw new ApiError('invalid_request', { param: 'id', message: `\`id\` must be a Payment id (${PAYMENT_SHAPES.B.paymentIdRule}).` });
    }
    const auth = authOf(ctx);
    await respondIdempotently(ctx, deps, {
      identity: shapeBRefundIdentity(id),
      objectKind: 'refund',
      retentionSeconds: deps.config.shapeBIdempotencyTtlSeconds,
      create: async (refundId, retry) => ({ status: 200, body: serializePaymentB(await service.refundInFull(auth, id, refundId, retry)) }),
    });
  });
}
