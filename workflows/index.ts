// Every workflow type the worker registers, exported under the names their contracts
// (workflows/contracts) give them.
export { PaymentWorkflow } from './payment/workflow';
export { PayoutWorkflow } from './payout';
export { RefundWorkflow } from './refund';
export { WebhookDeliveryWorkflow } from './webhook-delivery';
