// Which operations answer with which catalogue code (docs/api-reference.md, "Errors" and "Order of
// checks"), in one table. Every operation's error responses are derived from it, and `satisfies`
// makes a new catalogue code fail to compile until it is placed here.
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors';
import type { Shape } from '../../representations/versions';
import type { OperationId } from '../operations';
import type { Operation } from '../operations/operation';

type Scope =
  /** Every operation that needs an API key. */
  | 'authenticated'
  /** Every create (Idempotency-Key required). */
  | 'creates'
  /** Every create that reads a JSON body. */
  | 'creates with body'
  /** Every create, and every other operation that reads a JSON body. */
  | 'with body'
  | readonly OperationId[];

/** The webhook endpoint operations on one endpoint (a path id of another account is not found). */
const WEBHOOK_ENDPOINT_BY_ID = ['retrieveWebhookEndpoint', 'updateWebhookEndpoint', 'deleteWebhookEndpoint', 'rotateWebhookEndpointSecret'] as const;

export const ERROR_SCOPES = {
  // What a restricted key may not do (docs/api-reference.md, "Restricted keys").
  actor_forbidden: ['createRefund', 'refundPaymentB', 'createPayout', 'retryEvent', 'createWebhookEndpoint', 'updateWebhookEndpoint', 'deleteWebhookEndpoint', 'rotateWebhookEndpointSecret'],
  amount_exceeds_refundable: ['createRefund'],
  currency_not_supported: ['createPayment', 'createHostedPayment', 'createPayout'],
  idempotency_key_in_use: 'creates',
  idempotency_key_reused: 'creates',
  // A replay whose saved answer holds a webhook secret that has since been rotated away.
  idempotency_replay_unavailable: ['createWebhookEndpoint', 'rotateWebhookEndpointSecret'],
  internal_error: 'authenticated',
  invalid_api_key: 'authenticated',
  invalid_card: ['createPayout'],
  // A malformed path id; the Shape B refund has one too.
  invalid_request: ['listPayments', 'retrievePayment', 'listPayouts', 'retrievePayout', 'refundPaymentB', ...WEBHOOK_ENDPOINT_BY_ID, 'retrieveEvent', 'retryEvent',
    // An unknown `?version=` of the document or its page.
    'getOpenApiDocument', 'getDocsPage'],
  invalid_search_criteria: ['listPayments', 'listPayouts', 'listWebhookEndpoints', 'listEvents'],
  merchant_not_provisioned: ['createPayment', 'createHostedPayment', 'createRefund', 'createPayout', 'refundPaymentB'],
  // A webhook endpoint create's replay once the endpoint was deleted.
  object_not_found: ['createPayment', 'retrievePayment', 'createRefund', 'createPayout', 'retrievePayout', 'refundPaymentB', 'createWebhookEndpoint', ...WEBHOOK_ENDPOINT_BY_ID, 'retrieveEvent', 'retryEvent'],
  object_state_conflict: ['createPayment', 'createPayout'],
  // Includes a malformed or unknown Service-Version and an over-long Idempotency-Key.
  parameter_invalid: 'authenticated',
  parameter_missing: 'creates',
  payment_acceptance_unavailable: ['createPayment', 'createHostedPayment'],
  payment_not_refundable: ['createRefund', 'refundPaymentB'],
  payout_submission_unavailable: ['createPayout'],
  processing_error: ['createPayment'],
  // The provider's limit on Direct Payments, and the service's own per-API-key limit.
  rate_limit_exceeded: 'authenticated',
  // Every create, the Shape B refund too: it takes no body, and any other than none or `{}` is this;
  // and every other operation with a body.
  request_body_invalid: 'with body',
  // Answered for a method and path no operation matches; listed in the catalogue, not per operation.
  resource_not_found: [],
  service_unavailable: 'authenticated',
  unsupported_card: ['createPayout'],
  card_declined: ['createPayment'],
  charge_already_refunded: ['refundPaymentB'],
} as const satisfies Record<ErrorCode, Scope>;

/** Codes that exist only in the Shape B envelope (docs/shape-b.md). */
export const SHAPE_B_ONLY_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['card_declined', 'charge_already_refunded']);

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

function inScope(scope: Scope, operation: Operation): boolean {
  if (scope === 'authenticated') return operation.authenticated;
  if (scope === 'creates') return operation.create;
  if (scope === 'creates with body') return operation.create && operation.requestBody !== undefined;
  if (scope === 'with body') return operation.create || operation.requestBody !== undefined;
  return (scope as readonly string[]).includes(operation.id);
}

/** The codes an operation can answer with in one shape, in catalogue order. */
export function errorCodesFor(operation: Operation, shape: Shape): ErrorCode[] {
  return ERROR_CODES.filter((code) => inScope(ERROR_SCOPES[code], operation) && (shape === 'B' || !SHAPE_B_ONLY_CODES.has(code)));
}
