// WebhookDeliveryWorkflow: one per delivery (an event to one endpoint) that needs retries; workflow
// id = the delivery id, or a resend's id. The relay makes a delivery's first attempt without a
// workflow and starts this one only when that attempt failed or never happened. Temporal's
// activity retries are the delivery schedule: exponential backoff up to an hour, for up to 3 days,
// each attempt bounded by its own timeout. The same webhook-id goes out every time.
import { proxyActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import type { WebhookDeliveryWorkflowFn } from '../contracts/webhook-delivery';

export const WebhookDeliveryWorkflow: WebhookDeliveryWorkflowFn = async (input) => {
  // After the relay's failed attempts the schedule goes on where they left it: the workflow was
  // started with the delay the next attempt would have waited (start-delivery.ts), and the backoff
  // continues from there.
  const before = input.attemptsBefore ?? 0;
  const delaySeconds = (attempt: number) => Math.min(input.initialRetrySeconds * 2 ** attempt, 3600);
  const { deliverEvent } = proxyActivities<WebhookActivities>({
    // One attempt is bounded by its HTTP timeout (10 s); a worker that dies mid-attempt is noticed here.
    startToCloseTimeout: '15 seconds',
    scheduleToCloseTimeout: '3 days',
    retry: {
      initialInterval: `${delaySeconds(before)} seconds`,
      backoffCoefficient: 2,
      maximumInterval: '1 hour',
      nonRetryableErrorTypes: ['WebhookRefused', 'DeliveryMissing'],
    },
  });
  const { giveUpDelivery } = proxyActivities<WebhookActivities>({ startToCloseTimeout: '30 seconds' });
  try {
    return await deliverEvent(input);
  } catch {
    // Out of attempts or refused: the attempts table says why; the delivery is marked failed, and
    // nothing else fails.
    await giveUpDelivery(input.deliveryId);
    return { delivered: false, reason: 'not delivered' };
  }
};
