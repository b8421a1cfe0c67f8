// Every declared operation, in the order the reference shows them, and the tags that group them.
import { listEvents, retrieveEvent, retryEvent } from './events';
import type { Operation, Tag } from './operation';
import { createHostedPayment, createPayment, listPayments, refundPaymentB, retrievePayment } from './payments';
import { createPayout, listPayouts, retrievePayout } from './payouts';
import { createRefund } from './refunds';
import { getDocsPage, getHealth, getMetrics, getOpenApiDocument } from './service';
import {
  createWebhookEndpoint, deleteWebhookEndpoint, listWebhookEndpoints, retrieveWebhookEndpoint, rotateWebhookEndpointSecret, updateWebhookEndpoint,
} from './webhook-endpoints';

const DECLARATIONS = [
  createPayment, createHostedPayment, listPayments, retrievePayment,
  createRefund, refundPaymentB,
  createPayout, listPayouts, retrievePayout,
  createWebhookEndpoint, listWebhookEndpoints, retrieveWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint, rotateWebhookEndpointSecret,
  listEvents, retrieveEvent, retryEvent,
  getHealth, getMetrics, getOpenApiDocument, getDocsPage,
] as const satisfies readonly Operation[];

export type OperationId = (typeof DECLARATIONS)[number]['id'];
export const OPERATIONS: readonly Operation[] = DECLARATIONS;

export const TAGS: Record<Tag, string> = {
  Payments: 'Direct and Hosted Payment Page payments: create, retrieve, list.',
  Refunds: 'Refunds of `SUCCEEDED` payments. Shape A: `POST /v1/refunds`; Shape B: `POST /v1/payments/{id}/refund`.',
  Payouts: 'Server-to-server payouts to Visa and Mastercard cards. Shape A only.',
  'Webhook endpoints': 'Where events are sent: up to 16 endpoints per mode, each with its own `whsec_` secret, event filter, status '
    + 'and `api_version` (the body\'s shape). Each endpoint gets its own delivery of every event it takes, retried on its own. Shape A only.',
  Events: 'Webhooks: what the service POSTs to the merchant\'s endpoint on every status change, signed per Standard Webhooks. '
    + 'At least once, in any order: deduplicate on `webhook-id`, reconcile by reading the object, answer 2xx fast. '
    + 'Every event is kept at least 30 days: list them, read one with its deliveries and attempts, and send it again.',
  Service: 'Health, metrics and this reference. No authentication.',
};

/**
 * Routes the service serves that are not part of the merchant API, with the reason. Every other
 * route is registered from a declaration.
 */
export const UNDOCUMENTED_ROUTES: Record<string, string> = {
  'GET /checkout/{token}': 'Hosted Payment Page form, for the shopper\'s browser (reached through `next_action.redirect_url`).',
  'POST /checkout/{token}': 'Hosted Payment Page form submission, for the shopper\'s browser.',
  'GET /checkout/return/{id}': 'Browser return after 3D Secure, forwarding to the merchant\'s `return_url`.',
  'POST /internal/provider/notifications': 'Provider-to-service notifications, authenticated by a shared secret; not for merchants.',
};
