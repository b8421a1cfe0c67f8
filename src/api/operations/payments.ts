// The Payment operations, in both shapes, and Shape B's refund.
import { directPaymentSchemaB, hostedPaymentSchemaB } from '../schemas/payments-shape-b';
import { directPaymentSchemaA, hostedPaymentSchemaA, listPaymentsQuerySchemas } from '../schemas/payments';
import { operation } from './operation';

export const createPayment = operation({
  id: 'createPayment',
  method: 'post',
  path: '/v1/payments',
  tag: 'Payments',
  summary: 'Create a Direct Payment',
  description: 'The merchant server submits the card. The answer comes after server-side authentication: '
    + '`PROCESSING` (follow with `GET /v1/payments/{id}`), `REQUIRES_ACTION` (redirect the browser to `next_action.redirect_url`) '
    + 'or `FAILED` (an outcome, not an HTTP error). Shape B waits for the outcome: `201` `succeeded`, or `402` `card_declined`.',
  authenticated: true,
  create: true,
  shapes: ['A', 'B'],
  requestBody: {
    A: { component: 'DirectPaymentRequest', schema: directPaymentSchemaA, examples: ['directPaymentRequest'] },
    B: { component: 'DirectPaymentRequestB', schema: directPaymentSchemaB, examples: ['directPaymentRequestB'] },
  },
  responses: [{
    status: 201,
    description: 'The Payment, created. Check its `status`.',
    json: {
      A: { component: 'Payment', examples: ['paymentProcessing', 'paymentRequiresAction', 'paymentFailed'] },
      B: { component: 'PaymentB', examples: ['paymentSucceededB'] },
    },
  }],
});

export const createHostedPayment = operation({
  id: 'createHostedPayment',
  method: 'post',
  path: '/v1/payments/hpp',
  tag: 'Payments',
  summary: 'Create a Hosted Payment Page Payment',
  description: 'The service renders the card form; send no card data. On `REQUIRES_ACTION` redirect the browser to the exact '
    + '`next_action.redirect_url` (reason `hosted_payment_page`). The browser return never proves success: read the Payment.',
  authenticated: true,
  create: true,
  shapes: ['A', 'B'],
  requestBody: {
    A: { component: 'HostedPaymentRequest', schema: hostedPaymentSchemaA, examples: ['hostedPaymentRequest'] },
    B: { component: 'HostedPaymentRequestB', schema: hostedPaymentSchemaB, examples: ['hostedPaymentRequestB'] },
  },
  shapeBCallback: true,
  responses: [{
    status: 201,
    description: 'The Payment, created: `PENDING`, `REQUIRES_ACTION` with the hosted page, or `FAILED` (Shape B: `pending` with `redirect_url`).',
    json: {
      A: { component: 'Payment', examples: ['hostedPaymentRequiresAction'] },
      B: { component: 'PaymentB', examples: ['hostedPaymentPendingB'] },
    },
  }],
});

export const listPayments = operation({
  id: 'listPayments',
  method: 'get',
  path: '/v1/payments',
  tag: 'Payments',
  summary: 'List Payments',
  description: 'Newest first, ties broken by id, stable across pages while new Payments are created. The next page uses the last '
    + '`id` as `starting_after`; the previous page the first `id` as `ending_before` (not both). `has_more` alone says whether '
    + 'more pages exist. An unknown query parameter or a bad value is `400 invalid_search_criteria`.',
  authenticated: true,
  create: false,
  shapes: ['A', 'B'],
  query: listPaymentsQuerySchemas,
  responses: [{
    status: 200,
    description: 'One page of Payments.',
    json: { A: { component: 'PaymentList', examples: ['paymentList'] }, B: { component: 'PaymentListB', examples: ['paymentListB'] } },
  }],
});

export const retrievePayment = operation({
  id: 'retrievePayment',
  method: 'get',
  path: '/v1/payments/{id}',
  tag: 'Payments',
  summary: 'Retrieve a Payment',
  description: 'The authoritative state of a Payment, including its `refunds`, `amount_refunded` and `amount_refundable`. '
    + 'Keep retrieving while it is `PENDING`, `REQUIRES_ACTION` or `PROCESSING`.',
  authenticated: true,
  create: false,
  shapes: ['A', 'B'],
  pathParameter: 'PaymentId',
  responses: [{
    status: 200,
    description: 'The Payment.',
    json: { A: { component: 'Payment', examples: ['paymentSucceededWithRefund'] }, B: { component: 'PaymentB', examples: ['paymentSucceededB'] } },
  }],
});

export const refundPaymentB = operation({
  id: 'refundPaymentB',
  method: 'post',
  path: '/v1/payments/{id}/refund',
  tag: 'Refunds',
  summary: 'Refund a Payment (Shape B)',
  description: 'Refunds the whole remaining amount of the Payment (a `FULL` refund) and returns the Shape B payment with `status` '
    + '`refunded` and `refunded_at` set. No body. A second call gives `400 charge_already_refunded`. Always Shape B.',
  authenticated: true,
  create: true,
  shapes: ['B'],
  pathParameter: 'PaymentId',
  responses: [{ status: 200, description: 'The refunded payment.', json: { B: { component: 'PaymentB', examples: ['paymentRefundedB'] } } }],
});
