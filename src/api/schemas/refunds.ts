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
  payment_id: Joi.string().max(255).required(),
  amount: amount().required(),
  reason: text(MAX_REFUND_REASON_LENGTH).required(),
  merchant_reference: merchantReference(),
}).required();
