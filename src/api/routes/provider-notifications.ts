// Server-to-server notifications from the provider (3DS step changes). The body is only a nudge:
// the PaymentWorkflow reads the authoritative state from the provider itself.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import { update, WorkflowClosedError } from '../temporal-calls';
import type { AppRouter, Deps } from '../context';
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
    try {
      await update(deps.temporal, deps.config.workflowUpdateTimeoutMs, reference, 'providerEvent', []);
    } catch (error) {
      // A closed workflow has a final Payment (or none): the notification has nothing left to move.
      if (!(error instanceof WorkflowClosedError)) throw error;
    }
    ctx.status = 204;
  });
}
