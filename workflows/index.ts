// Every workflow type the worker registers.
export { PaymentWorkflow } from './payment';
export { RefundWorkflow } from './refund';
