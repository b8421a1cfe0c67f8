// Shape A's refund create (Shape B's is in payments.ts: it is a Payment path).
import { createRefundSchema } from '../schemas/refunds';
import { operation } from './operation';

export const createRefund = operation({
  id: 'createRefund',
  method: 'post',
  path: '/v1/refunds',
  tag: 'Refunds',
  summary: 'Create a Refund',
  description: 'Returns all or part of a `SUCCEEDED` Payment. The currency is the Payment\'s. The answer is `PROCESSING` (funds not '
    + 'yet returned) or `FAILED` (rejected at submission); follow the Refund in the Payment\'s `refunds` array. '
    + 'To return everything still available, send `amount` = `amount_refundable`. Always Shape A.',
  authenticated: true,
  create: true,
  shapes: ['A'],
  requestBody: { A: { component: 'RefundRequest', schema: createRefundSchema, examples: ['refundRequest'] } },
  responses: [{ status: 201, description: 'The Refund, created.', json: { A: { component: 'Refund', examples: ['refundProcessing', 'refundFailed'] } } }],
});
