// Starting the WebhookDeliveryWorkflow of an event: from the relay when a first attempt failed (or
// never happened), and from the admin command's resend. Idempotent by delivery id.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { startWorkflow } from './calls';
import { webhookDeliveryWorkflow, type DeliveryInput } from '../../workflows/contracts/webhook-delivery';

export interface DeliveryStarterDeps {
  temporal: Client;
  taskQueue: string;
  webhooks: { initialRetrySeconds: number };
}

/** Starts the delivery workflow of an event; an already started one is fine (at-least-once). */
export async function startDelivery(deps: DeliveryStarterDeps, eventId: string, deliveryId: string, attemptsBefore = 0): Promise<void> {
  const input: DeliveryInput = { eventId, initialRetrySeconds: deps.webhooks.initialRetrySeconds };
  if (attemptsBefore > 0) input.attemptsBefore = attemptsBefore;
  try {
    await startWorkflow(deps.temporal, webhookDeliveryWorkflow, {
      workflowId: deliveryId,
      taskQueue: deps.taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

