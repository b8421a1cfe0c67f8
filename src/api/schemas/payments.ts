// Request schemas of the Payment operations (docs/api-reference.md, "Money and bounds" and "Lists").
import Joi from 'joi';
import { amount, billingDetails, cardCvc, cardExpMonth, cardExpYear, cardNumber, currency, description, ipAddress, merchantCustomerId, merchantReference, returnUrl, text, unixSeconds } from './common';
import type { BillingDetails } from '../../domain/payment';

export interface DirectPaymentRequestA {
  amount: number;
  currency: string;
  merchant_reference?: number | null;
  payment_method_data: {
    type: 'card';
    card: { number: string; exp_month: number; exp_year: number; cvc: string; holder_name?: string | null };
  };
  customer_ip_address: string;
  merchant_customer_id?: string | null;
  billing_details?: BillingDetails | null;
  description?: string | null;
  return_url: string;
}

export const directPaymentSchemaA = Joi.object<DirectPaymentRequestA>({
  amount: amount().required(),
  currency: currency().required(),
  merchant_reference: merchantReference(),
  payment_method_data: Joi.object({
    type: Joi.string().valid('card').required(),
    card: Joi.object({
      number: cardNumber().required(),
      exp_month: cardExpMonth().required(),
      exp_year: cardExpYear().required(),
      cvc: cardCvc().required(),
      holder_name: text(255).min(1).allow(null),
    }).required(),
  }).required(),
  customer_ip_address: ipAddress().required(),
  merchant_customer_id: merchantCustomerId(),
  billing_details: billingDetails(),
  description: description(),
  return_url: returnUrl().required(),
}).required();

export interface HostedPaymentRequestA {
  amount: number;
  currency: string;
  customer_ip_address: string;
  return_url: string;
  merchant_reference?: number | null;
  billing_details?: BillingDetails | null;
  description?: string | null;
  merchant_customer_id?: string | null;
}

export const hostedPaymentSchemaA = Joi.object<HostedPaymentRequestA>({
  amount: amount().required(),
  currency: currency().required(),
  customer_ip_address: ipAddress().required(),
  return_url: returnUrl().required(),
  merchant_reference: merchantReference(),
  billing_details: billingDetails(),
  description: description(),
  merchant_customer_id: merchantCustomerId(),
}).required();

const paymentId = () => Joi.string().pattern(/^pay_[A-Za-z0-9-]+$/).max(64);

/**
 * GET /v1/payments; `status` is spelled per shape, and the two cursors together are
 * refused, by the caller (so the error names the parameter).
 */
export const listPaymentsQuerySchema = Joi.object({
  limit: Joi.number().integer().min(1).max(100).default(10),
  starting_after: paymentId(),
  ending_before: paymentId(),
  status: Joi.alternatives(Joi.string(), Joi.array().items(Joi.string())),
  'created[gte]': unixSeconds(),
  'created[lt]': unixSeconds(),
});
