// POST /v1/refunds (docs/api-reference.md, "Refunds"): an update on the parent PaymentWorkflow,
// which owns the balance. Shape A only, whatever the version asked for.
import { refundCreateIdentity } from '../../domain/idempotency';
import { RefundService } from '../../services/refunds';
import { authOf, type AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { authenticate } from '../middleware/authenticate';
import { requireCapability } from '../middleware/capability';
import { requireIdempotencyKey } from '../middleware/idempotency-key';
import { resolveVersion } from '../middleware/version';
import { respondIdempotently } from '../respond';
import { route } from '../operations/operation';
import { createRefund } from '../operations/refunds';
import { serializeRefundA } from '../../representations/payment-a';
import { readJsonBody, validateBody } from '../validation';

export function registerRefundRoutes(router: AppRouter, deps: Deps): void {
  const service = new RefundService(deps);

  route(router, createRefund, authenticate(deps), resolveVersion('A'), requireCapability('create_refunds'), requireIdempotencyKey, async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.maxBodyBytes);
    const request = validateBody(createRefund.requestBody.A.schema, body);
    const auth = authOf(ctx);
    await respondIdempotently(ctx, deps, {
      identity: refundCreateIdentity(request),
      objectKind: 'refund',
      create: async (refundId, retry) => {
        const refund = await service.create(auth, {
          paymentId: request.payment_id,
          amount: request.amount,
          reason: request.reason,
          merchantReference: request.merchant_reference ?? null,
        }, refundId, retry);
        return { status: 201, body: serializeRefundA(refund, auth.livemode) };
      },
    });
  });
}
