// Starting the WebhookDeliveryWorkflow of an event: from the events activity and from the admin
// command's resend. Idempotent by delivery id.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';

export interface DeliveryInput {
  eventId: string;
  initialRetrySeconds: number;
}

export interface DeliveryStarterDeps {
  temporal: Client;
  taskQueue: string;
  webhooks: { initialRetrySeconds: number };
}

/** Starts the delivery workflow of an event; an already started one is fine (at-least-once). */
export async function startDelivery(deps: DeliveryStarterDeps, eventId: string, deliveryId: string): Promise<void> {
  try {
    await deps.temporal.workflow.start('WebhookDeliveryWorkflow', {
      workflowId: deliveryId,
      taskQueue: deps.taskQueue,
      args: [{ eventId, initialRetrySeconds: deps.webhooks.initialRetrySeconds } satisfies DeliveryInput],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

