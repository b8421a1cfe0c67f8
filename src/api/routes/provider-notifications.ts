// Server-to-server notifications from the provider (3DS step changes). The body is only a nudge:
// the PaymentWorkflow reads the authoritative state from the provider itself.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { PaymentService } from '../../services/payments';
import type { AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { readBodyText } from '../request-body';

export function registerProviderNotificationRoutes(router: AppRouter, deps: Deps): void {
  router.post('providerNotification', '/internal/provider/notifications', async (ctx) => {
    const raw = await readBodyText(ctx, 16 * 1024);
    const expected = createHmac('sha256', deps.config.sandboxNotifySecret).update(raw).digest();
    const given = Buffer.from(ctx.get('sandbox-signature'), 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('invalid_api_key');
    let reference: unknown;
    try {
      reference = (JSON.parse(raw) as { reference?: unknown }).reference;
    } catch {
      throw new ApiError('request_body_invalid');
    }
    if (typeof reference !== 'string' || !isId('payment', reference)) throw new ApiError('request_body_invalid', { param: 'reference' });
    await new PaymentService(deps).providerEvent(reference);
    ctx.status = 204;
  });
}
