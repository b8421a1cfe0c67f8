// WebhookDeliveryWorkflow: one per delivery of an event (workflow id = event id, or a resend id).
// Temporal's activity retries are the delivery schedule: exponential backoff up to an hour, for
// up to 3 days, each attempt bounded by its own timeout. The same webhook-id goes out every time.
import { proxyActivities } from '@temporalio/workflow';
import type { DeliveryInput, WebhookActivities } from '../activities/webhooks';

export async function WebhookDeliveryWorkflow(input: DeliveryInput): Promise<{ delivered: boolean; reason?: string }> {
  const { deliverEvent } = proxyActivities<WebhookActivities>({
    // One attempt is bounded by its HTTP timeout (10 s); a worker that dies mid-attempt is noticed here.
    startToCloseTimeout: '15 seconds',
    scheduleToCloseTimeout: '3 days',
    retry: {
      initialInterval: `${input.initialRetrySeconds} seconds`,
      backoffCoefficient: 2,
      maximumInterval: '1 hour',
      nonRetryableErrorTypes: ['WebhookRefused', 'EventMissing'],
    },
  });
  try {
    return await deliverEvent(input);
  } catch {
    // Out of attempts or refused: the attempts table says why; the workflow ends, nothing else fails.
    return { delivered: false, reason: 'not delivered' };
  }
}
