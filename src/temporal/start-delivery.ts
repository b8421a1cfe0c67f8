// Starting delivery workflows. A delivery to a webhook endpoint waits behind its endpoint's circuit
// (src/webhooks/circuit.ts), with no workflow. A Shape B `callback_url` delivery has no endpoint: it
// gets a WebhookDeliveryWorkflow of its own, as does an admin command's resend. Idempotent by
// workflow id: the delivery id, or a resend's own id.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { startWorkflow } from './calls';
import { retryDelaySeconds } from '../domain/webhook-endpoints';
import { webhookDeliveryWorkflow, type DeliveryInput } from '../../contracts/webhook-delivery';

export interface DeliveryStarterDeps {
  temporal: Client;
  taskQueue: string;
  webhooks: { initialRetrySeconds: number };
}

/**
 * Starts a delivery's workflow; an already started one is fine (at-least-once). After failed
 * attempts it starts when the next one is due: a delayed start has no workflow task (and no timer)
 * until then, which matters when an endpoint is down and every event to it gets a workflow.
 */
export async function startDelivery(
  deps: DeliveryStarterDeps, delivery: { deliveryId: string; eventId: string }, attemptsBefore = 0, workflowId = delivery.deliveryId,
): Promise<void> {
  const input: DeliveryInput = { deliveryId: delivery.deliveryId, eventId: delivery.eventId, initialRetrySeconds: deps.webhooks.initialRetrySeconds };
  if (attemptsBefore > 0) input.attemptsBefore = attemptsBefore;
  try {
    await startWorkflow(deps.temporal, webhookDeliveryWorkflow, {
      workflowId,
      taskQueue: deps.taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      ...(attemptsBefore > 0 ? { startDelay: `${retryDelaySeconds(deps.webhooks.initialRetrySeconds, attemptsBefore)} seconds` } : {}),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
