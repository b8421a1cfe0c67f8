// The one table of documented operations: what each does, who may call it, the shapes it speaks and
// the component schemas of its request and responses. The OpenAPI document, its error lists and
// the docs page are all derived from this table; a unit test holds it equal to the router.
import type { Shape } from '../../representations/versions';

export type OperationId =
  | 'createPayment' | 'createHostedPayment' | 'listPayments' | 'retrievePayment'
  | 'createRefund' | 'refundPaymentB'
  | 'createPayout' | 'listPayouts' | 'retrievePayout'
  | 'listEvents' | 'retrieveEvent' | 'retryEvent'
  | 'createWebhookEndpoint' | 'listWebhookEndpoints' | 'retrieveWebhookEndpoint' | 'updateWebhookEndpoint'
  | 'deleteWebhookEndpoint' | 'rotateWebhookEndpointSecret'
  | 'getHealth' | 'getMetrics' | 'getOpenApiDocument' | 'getDocsPage';

export type Tag = 'Payments' | 'Refunds' | 'Payouts' | 'Webhook endpoints' | 'Events' | 'Service';

export const TAGS: Record<Tag, string> = {
  Payments: 'Direct and Hosted Payment Page payments: create, retrieve, list. Both shapes, chosen by `Service-Version`.',
  Refunds: 'Refunds of `SUCCEEDED` payments. `POST /v1/refunds` is Shape A; `POST /v1/payments/{id}/refund` is Shape B.',
  Payouts: 'Server-to-server payouts to Visa and Mastercard cards. Shape A only.',
  'Webhook endpoints': 'Where events are sent: up to 16 endpoints per mode, each with its own `whsec_` secret, event filter, status '
    + 'and `api_version` (the body\'s shape). Each endpoint gets its own delivery of every event it takes, retried on its own. Shape A only.',
  Events: 'Webhooks: what the service POSTs to the merchant\'s endpoint on every status change, signed per Standard Webhooks. '
    + 'At least once, in any order: deduplicate on `webhook-id`, reconcile by reading the object, answer 2xx fast. '
    + 'Every event is kept at least 30 days: list them, read one with its deliveries and attempts, and send it again.',
  Service: 'Health, metrics and this reference. No authentication.',
};

/** A response the operation gives on success (or, for health, when degraded). */
export interface SuccessResponse {
  status: number;
  description: string;
  /** JSON body: the component schema per shape spoken. */
  json?: Partial<Record<Shape, string>>;
  /** Non-JSON body. */
  mediaType?: 'text/plain' | 'text/html';
  /** Names of examples in `examples.ts` shown with this response. */
  examples?: string[];
}

export interface OperationSpec {
  id: OperationId;
  method: 'get' | 'post' | 'delete';
  /** OpenAPI path template. */
  path: string;
  tag: Tag;
  summary: string;
  description: string;
  /** Needs `Authorization: Bearer <API key>`. */
  authenticated: boolean;
  /** A create: `Idempotency-Key` required; 2xx answers are saved and replayed. */
  create: boolean;
  /** Shapes spoken; two means the request's `Service-Version` decides. */
  shapes: readonly Shape[];
  /**
   * False: part of the interface but not routed by this version of the service, which
   * answers `404 resource_not_found` for it. The router test keeps this flag honest.
   */
  served: boolean;
  pathParameter?: 'PaymentId' | 'PayoutId' | 'WebhookEndpointId' | 'EventId';
  /** Component name of the joi query schema whose keys become query parameters. */
  query?: 'ListPaymentsQuery' | 'ListPayoutsQuery' | 'ListWebhookEndpointsQuery' | 'ListEventsQuery';
  /** Component schema of the JSON request body per shape. */
  requestBody?: Partial<Record<Shape, string>>;
  /** The body may be left out (every field has a default). */
  requestBodyOptional?: boolean;
  requestExamples?: string[];
  responses: SuccessResponse[];
  /** Shape B hosted payments: the completed payment is POSTed to the request's `callback_url`. */
  shapeBCallback?: boolean;
}

export const OPERATIONS: readonly OperationSpec[] = [
  {
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
    served: true,
    requestBody: { A: 'DirectPaymentRequest', B: 'DirectPaymentRequestB' },
    requestExamples: ['directPaymentRequest', 'directPaymentRequestB'],
    responses: [{
      status: 201,
      description: 'The Payment, created. Check its `status`.',
      json: { A: 'Payment', B: 'PaymentB' },
      examples: ['paymentProcessing', 'paymentRequiresAction', 'paymentFailed', 'paymentSucceededB'],
    }],
  },
  {
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
    served: true,
    requestBody: { A: 'HostedPaymentRequest', B: 'HostedPaymentRequestB' },
    requestExamples: ['hostedPaymentRequest', 'hostedPaymentRequestB'],
    shapeBCallback: true,
    responses: [{
      status: 201,
      description: 'The Payment, created: `PENDING`, `REQUIRES_ACTION` with the hosted page, or `FAILED` (Shape B: `pending` with `redirect_url`).',
      json: { A: 'Payment', B: 'PaymentB' },
      examples: ['hostedPaymentRequiresAction', 'hostedPaymentPendingB'],
    }],
  },
  {
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
    served: true,
    query: 'ListPaymentsQuery',
    responses: [{
      status: 200,
      description: 'One page of Payments.',
      json: { A: 'PaymentList', B: 'PaymentListB' },
      examples: ['paymentList'],
    }],
  },
  {
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
    served: true,
    pathParameter: 'PaymentId',
    responses: [{
      status: 200,
      description: 'The Payment.',
      json: { A: 'Payment', B: 'PaymentB' },
      examples: ['paymentSucceededWithRefund'],
    }],
  },
  {
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
    served: true,
    requestBody: { A: 'RefundRequest' },
    requestExamples: ['refundRequest'],
    responses: [{
      status: 201,
      description: 'The Refund, created.',
      json: { A: 'Refund' },
      examples: ['refundProcessing', 'refundFailed'],
    }],
  },
  {
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
    served: true,
    pathParameter: 'PaymentId',
    responses: [{
      status: 200,
      description: 'The refunded payment.',
      json: { B: 'PaymentB' },
      examples: ['paymentRefundedB'],
    }],
  },
  {
    id: 'createPayout',
    method: 'post',
    path: '/v1/payouts',
    tag: 'Payouts',
    summary: 'Submit a Payout',
    description: 'Sends funds to a Visa or Mastercard card, server to server (no browser step). An uncertain provider answer (rate limit, '
      + 'timeout) is a `201` `PENDING` Payout, not an error: the service resolves it. A same-key replay returns the saved creation '
      + 'answer; read the current state with `GET /v1/payouts/{payout_id}`. Always Shape A.',
    authenticated: true,
    create: true,
    shapes: ['A'],
    served: true,
    requestBody: { A: 'PayoutRequest' },
    requestExamples: ['payoutRequest'],
    responses: [{
      status: 201,
      description: 'The Payout, submitted.',
      json: { A: 'Payout' },
      examples: ['payoutPending', 'payoutFailed'],
    }],
  },
  {
    id: 'listPayouts',
    method: 'get',
    path: '/v1/payouts',
    tag: 'Payouts',
    summary: 'List Payouts',
    description: 'Newest first. `search` is literal and case-insensitive across ids, merchant references and recipient names; four '
      + 'digits also match the card\'s last four; with exactly one `currency` filter a major-unit amount (decimal point or comma) '
      + 'matches too. Every filter applies even with `search`. `total_count` counts all matches before pagination. '
      + '`starting_after` and `ending_before` cannot be combined; `created[gte]` must not be after `created[lt]`, nor `amount[gte]` '
      + 'above `amount[lte]`.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    query: 'ListPayoutsQuery',
    responses: [{
      status: 200,
      description: 'One page of Payouts.',
      json: { A: 'PayoutList' },
      examples: ['payoutList'],
    }],
  },
  {
    id: 'retrievePayout',
    method: 'get',
    path: '/v1/payouts/{payout_id}',
    tag: 'Payouts',
    summary: 'Retrieve a Payout',
    description: 'The latest recorded state. Retrieving never advances a Payout.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    pathParameter: 'PayoutId',
    responses: [{
      status: 200,
      description: 'The Payout.',
      json: { A: 'Payout' },
      examples: ['payoutSucceeded'],
    }],
  },
  {
    id: 'createWebhookEndpoint',
    method: 'post',
    path: '/v1/webhook_endpoints',
    tag: 'Webhook endpoints',
    summary: 'Create a webhook endpoint',
    description: 'Events of the key\'s mode whose type is in `enabled_events` (or every type, with `*`) are POSTed to `url`, signed with '
      + 'the endpoint\'s own secret. The answer is the only one, with a rotation\'s, that shows `secret`: keep it. In live mode the URL '
      + 'must resolve to public addresses; in test mode `http://localhost` and `http://127.0.0.1` are allowed too, but never a port of the '
      + 'service itself. At most 16 endpoints per mode (more: `400 parameter_invalid`, param `url`).',
    authenticated: true,
    create: true,
    shapes: ['A'],
    served: true,
    requestBody: { A: 'WebhookEndpointRequest' },
    requestExamples: ['webhookEndpointRequest'],
    responses: [{ status: 201, description: 'The endpoint, with its secret.', json: { A: 'WebhookEndpointWithSecret' }, examples: ['webhookEndpointCreated'] }],
  },
  {
    id: 'listWebhookEndpoints',
    method: 'get',
    path: '/v1/webhook_endpoints',
    tag: 'Webhook endpoints',
    summary: 'List webhook endpoints',
    description: 'The endpoints of the key\'s mode, newest first. `starting_after` and `ending_before` cannot be combined.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    query: 'ListWebhookEndpointsQuery',
    responses: [{ status: 200, description: 'One page of endpoints.', json: { A: 'WebhookEndpointList' }, examples: ['webhookEndpointList'] }],
  },
  {
    id: 'retrieveWebhookEndpoint',
    method: 'get',
    path: '/v1/webhook_endpoints/{id}',
    tag: 'Webhook endpoints',
    summary: 'Retrieve a webhook endpoint',
    description: 'The endpoint, without its secret.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    pathParameter: 'WebhookEndpointId',
    responses: [{ status: 200, description: 'The endpoint.', json: { A: 'WebhookEndpoint' }, examples: ['webhookEndpoint'] }],
  },
  {
    id: 'updateWebhookEndpoint',
    method: 'post',
    path: '/v1/webhook_endpoints/{id}',
    tag: 'Webhook endpoints',
    summary: 'Update a webhook endpoint',
    description: 'Changes any of `url`, `enabled_events`, `description` and `status`; fields left out stay. A `disabled` endpoint gets no new '
      + 'deliveries and its pending retries stop. The URL rules are the create\'s. `api_version` is fixed at creation: create a new '
      + 'endpoint to move to another version.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    pathParameter: 'WebhookEndpointId',
    requestBody: { A: 'WebhookEndpointUpdateRequest' },
    requestExamples: ['webhookEndpointUpdateRequest'],
    responses: [{ status: 200, description: 'The endpoint, updated.', json: { A: 'WebhookEndpoint' }, examples: ['webhookEndpointDisabled'] }],
  },
  {
    id: 'deleteWebhookEndpoint',
    method: 'delete',
    path: '/v1/webhook_endpoints/{id}',
    tag: 'Webhook endpoints',
    summary: 'Delete a webhook endpoint',
    description: 'The endpoint gets no more deliveries and its pending retries stop. Events already sent keep naming it.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    pathParameter: 'WebhookEndpointId',
    responses: [{ status: 200, description: 'Deleted.', json: { A: 'DeletedWebhookEndpoint' }, examples: ['webhookEndpointDeleted'] }],
  },
  {
    id: 'rotateWebhookEndpointSecret',
    method: 'post',
    path: '/v1/webhook_endpoints/{id}/rotate_secret',
    tag: 'Webhook endpoints',
    summary: 'Rotate a webhook endpoint\'s secret',
    description: 'A new secret, shown in this answer only. Until `grace_period_seconds` have passed (default a day, at most seven) every '
      + 'delivery carries two `v1,` signatures, one per secret, so receivers can switch without missing an event. A rotation with `0` '
      + 'retires the older secrets at once.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    pathParameter: 'WebhookEndpointId',
    requestBody: { A: 'RotateWebhookSecretRequest' },
    requestBodyOptional: true,
    requestExamples: ['rotateWebhookSecretRequest'],
    responses: [{ status: 200, description: 'The endpoint, with its new secret.', json: { A: 'WebhookEndpointWithSecret' }, examples: ['webhookEndpointRotated'] }],
  },
  {
    id: 'listEvents',
    method: 'get',
    path: '/v1/events',
    tag: 'Events',
    summary: 'List events',
    description: 'Newest first, stable across pages while new events are raised (`starting_after` / `ending_before` with an event id, '
      + 'not both). Filters combine: `type` (repeatable; an exact type or a prefix wildcard such as `payment.*`), `object_id`, '
      + 'the creation time, and `delivery_success`. Events are kept at least 30 days. A bad value is `400 invalid_search_criteria`.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    query: 'ListEventsQuery',
    responses: [{ status: 200, description: 'One page of events.', json: { A: 'EventList' } }],
  },
  {
    id: 'retrieveEvent',
    method: 'get',
    path: '/v1/events/{id}',
    tag: 'Events',
    summary: 'Retrieve an event',
    description: 'The event as delivered, with one entry in `deliveries` per webhook endpoint it was sent to: its status, every attempt '
      + '(oldest first) and when the next one is due.',
    authenticated: true,
    create: false,
    shapes: ['A'],
    served: true,
    pathParameter: 'EventId',
    responses: [{ status: 200, description: 'The event with its deliveries.', json: { A: 'EventWithDeliveries' } }],
  },
  {
    id: 'retryEvent',
    method: 'post',
    path: '/v1/events/{id}/retry',
    tag: 'Events',
    summary: 'Send an event again',
    description: 'One new attempt now to each webhook endpoint the event was sent to (or only to `webhook_endpoint_id`), whatever earlier '
      + 'attempts did: the same `webhook-id`, a fresh timestamp and signature. The answer comes after the attempts, with the event as '
      + 'retrieve shows it. An endpoint the event was not sent to is `404 object_not_found`.',
    authenticated: true,
    create: true,
    shapes: ['A'],
    served: true,
    pathParameter: 'EventId',
    requestBody: { A: 'RetryEventRequest' },
    requestBodyOptional: true,
    requestExamples: ['retryEventRequest'],
    responses: [{ status: 200, description: 'The event with its deliveries, the new attempts included.', json: { A: 'EventWithDeliveries' } }],
  },
  {
    id: 'getHealth',
    method: 'get',
    path: '/v1/health',
    tag: 'Service',
    summary: 'Health',
    description: 'Aggregate availability: the database and Temporal are checked on every call.',
    authenticated: false,
    create: false,
    shapes: [],
    served: true,
    responses: [
      { status: 200, description: 'Every check is `ok`.', json: { A: 'HealthOk' }, examples: ['healthOk'] },
      { status: 503, description: 'At least one check is `unavailable`.', json: { A: 'HealthUnavailable' }, examples: ['healthUnavailable'] },
    ],
  },
  {
    id: 'getMetrics',
    method: 'get',
    path: '/metrics',
    tag: 'Service',
    summary: 'Prometheus metrics',
    description: 'Prometheus text exposition format: requests by route and status, latency histograms.',
    authenticated: false,
    create: false,
    shapes: [],
    served: true,
    responses: [{ status: 200, description: 'The metrics.', mediaType: 'text/plain' }],
  },
  {
    id: 'getOpenApiDocument',
    method: 'get',
    path: '/openapi.json',
    tag: 'Service',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 description of the whole interface. Request schemas are generated from the validation schemas the API runs.',
    authenticated: false,
    create: false,
    shapes: [],
    served: true,
    responses: [{ status: 200, description: 'The document.', json: { A: 'OpenApiDocument' } }],
  },
  {
    id: 'getDocsPage',
    method: 'get',
    path: '/docs',
    tag: 'Service',
    summary: 'API reference page',
    description: 'This document rendered as HTML: operations by resource, schemas, examples and the error catalogue (anchors `#error-<code>`, which `error.doc_url` links to).',
    authenticated: false,
    create: false,
    shapes: [],
    served: true,
    responses: [{ status: 200, description: 'The page.', mediaType: 'text/html' }],
  },
];

/**
 * Routes the service serves that are not part of the merchant API, with the reason. Anything else
 * the router serves must be in OPERATIONS.
 */
export const UNDOCUMENTED_ROUTES: Record<string, string> = {
  'GET /checkout/{token}': 'Hosted Payment Page form, for the shopper\'s browser (reached through `next_action.redirect_url`).',
  'POST /checkout/{token}': 'Hosted Payment Page form submission, for the shopper\'s browser.',
  'GET /checkout/return/{id}': 'Browser return after 3D Secure, forwarding to the merchant\'s `return_url`.',
  'POST /internal/provider/notifications': 'Provider-to-service notifications, authenticated by a shared secret; not for merchants.',
};
