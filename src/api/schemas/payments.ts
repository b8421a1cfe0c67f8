// Request schemas of the Payment operations (docs/api-reference.md, "Money and bounds" and "Lists").
import Joi from 'joi';
import {
  amount, billingDetails, cardCvc, cardExpMonth, cardExpYear, cardNumber, createdGte, createdLt, currency, description, ipAddress, merchantCustomerId,
  merchantReference, pageLimit, repeatable, returnUrl, text,
} from './common';
import type { BillingDetails, PaymentStatusFilter } from '../../domain/payment';
import { PAYMENT_SHAPES } from '../../representations/payment-shapes';
import type { Shape } from '../../representations/versions';

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
    type: Joi.string().valid('card').required().description('Only `card`.'),
    card: Joi.object({
      number: cardNumber().required(),
      exp_month: cardExpMonth().required(),
      exp_year: cardExpYear().required(),
      cvc: cardCvc().required(),
      holder_name: text(255).min(1).allow(null).description('The cardholder\'s name, as printed on the card.'),
    }).required().description('The card, from your PCI environment. Never stored in plaintext.'),
  }).required().description('How the customer pays.'),
  customer_ip_address: ipAddress().required(),
  merchant_customer_id: merchantCustomerId(),
  billing_details: billingDetails(),
  description: description(),
  return_url: returnUrl().required(),
}).required().description('A Direct Payment: the card is submitted by the merchant server.');

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
  billing_details: billingDetails().description('Prefills the hosted form.'),
  description: description(),
  merchant_customer_id: merchantCustomerId(),
}).required().description('A Hosted Payment Page payment: the service renders the card form.');

const paymentId = () => Joi.string().pattern(/^pay_[A-Za-z0-9-]+$/).max(64);

export interface ListPaymentsQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  status?: PaymentStatusFilter[];
  'created[gte]'?: number;
  'created[lt]'?: number;
}

/**
 * GET /v1/payments in one shape: `status` is spelled in the shape's words. The two cursors together
 * are refused by the caller (so the error names the parameter).
 */
function listPaymentsQuery(shape: Shape) {
  const { statusValues, statusFilter } = PAYMENT_SHAPES[shape];
  return Joi.object<ListPaymentsQuery>({
    limit: pageLimit(),
    starting_after: paymentId().description('Payment id: the page after it (newer-to-older order). Not with `ending_before`.'),
    ending_before: paymentId().description('Payment id: the page before it. Not with `starting_after`.'),
    status: repeatable(Joi.string().valid(...statusValues), statusFilter, `{{#label}} must be one of ${statusValues.join(', ')}`)
      .description('Repeatable: Payments in any of these statuses.'),
    'created[gte]': createdGte(),
    'created[lt]': createdLt(),
  });
}

export const listPaymentsQuerySchemas: Record<Shape, Joi.ObjectSchema<ListPaymentsQuery>> = { A: listPaymentsQuery('A'), B: listPaymentsQuery('B') };
