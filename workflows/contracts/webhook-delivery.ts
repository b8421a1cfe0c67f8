// The WebhookDeliveryWorkflow's contract: one delivery of a recorded event, with Temporal's retries.
import type { WorkflowType } from './workflow-type';

export interface DeliveryInput {
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
