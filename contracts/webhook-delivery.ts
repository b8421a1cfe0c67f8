// The WebhookDeliveryWorkflow's contract: one delivery (an event to one endpoint) with Temporal's retries.
import type { WorkflowType } from './workflow-type';

export interface DeliveryInput {
  /** The webhook_deliveries id (`wdl_...`). */
  deliveryId: string;
  eventId: string;
  initialRetrySeconds: number;
  /** Attempts the relay already made for this delivery (0 or absent: the workflow makes the first). */
  attemptsBefore?: number;
}

export interface DeliveryResult {
  delivered: boolean;
  reason?: string;
}

export type WebhookDeliveryWorkflowFn = (input: DeliveryInput) => Promise<DeliveryResult>;
export const webhookDeliveryWorkflow: WorkflowType<WebhookDeliveryWorkflowFn> = { name: 'WebhookDeliveryWorkflow' };
