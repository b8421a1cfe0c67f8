// Every workflow type the worker registers, exported under the names their contracts
// (contracts/) give them.
export { PaymentWorkflow } from './payment/workflow';
export { PayoutWorkflow } from './payout/workflow';
export { RefundWorkflow } from './refund/workflow';
export { WebhookDeliveryWorkflow } from './webhook-delivery';
export { CvcSweepWorkflow, EventPurgeWorkflow, IdempotencyPurgeWorkflow } from './chores';
