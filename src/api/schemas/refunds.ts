// Request schema of POST /v1/refunds. No currency: a Refund inherits its Payment's.
import Joi from 'joi';
import { amount, merchantReference, text } from './common';

export const MAX_REFUND_REASON_LENGTH = 50;

export interface CreateRefundRequest {
  payment_id: string;
  amount: number;
  reason: string;
  merchant_reference?: number | null;
}

export const createRefundSchema = Joi.object<CreateRefundRequest>({
  payment_id: Joi.string().max(255).required()
    .description('The parent Payment, which must be `SUCCEEDED`. An unknown id is `404 object_not_found`.'),
  amount: amount().required()
    .description('Minor units of the Payment\'s currency. At most the Payment\'s `amount_refundable`, else `422 amount_exceeds_refundable`.'),
  reason: text(MAX_REFUND_REASON_LENGTH).required().description('Why the refund is made.'),
  merchant_reference: merchantReference(),
}).required().description('A Refund of all or part of a `SUCCEEDED` Payment, in its currency.');
