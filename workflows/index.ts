// Every workflow type the worker registers.
export { PaymentWorkflow } from './payment';
export { PayoutWorkflow } from './payout';
export { RefundWorkflow } from './refund';
export { WebhookDeliveryWorkflow } from './webhook-delivery';
