// Shape A response schemas exactly as the serializers emit them,
// and both error envelopes as `errorBody` emits them. Strict (`additionalProperties: false`, every
// emitted field required) so that validating real responses catches any drift.
import type { CardBrand } from '../../domain/cards';
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/errors';
import { FAILURE_CODES } from '../../domain/failure-codes';
import { MAX_AMOUNT } from '../../domain/money';
import { PAYMENT_STATUSES, type IntegrationType, type NextActionReason } from '../../domain/payment';
import { SHAPE_B_DECLINE_CODES } from '../../domain/payment-shape-b';
import { PAYOUT_STATUSES } from '../../domain/payout';
import type { RefundStatus, RefundType } from '../../domain/refunds';
import { KNOWN_VERSIONS } from '../../representations/versions';
import { SHAPE_B_ONLY_CODES } from './error-scopes';
import { openEnum, schemaRef, type JsonSchema } from './types';

// Records keyed by the domain unions, so a new member fails to compile until it is described.
const BRANDS: Record<CardBrand, true> = { VISA: true, MASTERCARD: true, AMEX: true, DISCOVER: true, JCB: true, DINERS: true, UNIONPAY: true, UNKNOWN: true };
const INTEGRATION_TYPES: Record<IntegrationType, true> = { DIRECT: true, HOSTED_PAYMENT_PAGE: true };
const NEXT_ACTION_REASONS: Record<NextActionReason, true> = { hosted_payment_page: true, three_d_secure: true };
const REFUND_STATUSES: Record<RefundStatus, true> = { PENDING: true, PROCESSING: true, SUCCEEDED: true, FAILED: true };
const REFUND_TYPES: Record<RefundType, true> = { FULL: true, PARTIAL: true };

/** A property that must not be present. */
const ABSENT: JsonSchema = { not: {} };

/**
 * A condition on some properties of the (closed) object it is part of (`if`/`then`/`else`).
 * `additionalProperties: true` changes nothing in JSON Schema but says so to example checkers that
 * otherwise treat every subschema listing properties as closed (Redocly's), and reject valid examples.
 */
const partial = (properties: Record<string, JsonSchema>, required?: string[]): JsonSchema => ({
  properties,
  ...(required ? { required } : {}),
  additionalProperties: true,
});

export const CARD_BRANDS = Object.keys(BRANDS) as CardBrand[];
export const REQUEST_ID_PATTERN = '^req_[A-Za-z0-9]{24}$';

export const nullable = (schema: JsonSchema, description?: string): JsonSchema => ({
  oneOf: [schema, { type: 'null' }],
  ...(description ? { description } : {}),
});

export const timestamp = (isNullable: boolean, description?: string): JsonSchema => ({
  type: isNullable ? ['integer', 'null'] : 'integer',
  format: 'int64',
  ...(description ? { description } : { description: 'Unix timestamp (seconds).' }),
});

const minorUnits = (minimum: number, description: string): JsonSchema => ({ type: 'integer', format: 'int64', minimum, maximum: MAX_AMOUNT, description });
const uppercaseCurrency = (): JsonSchema => ({ type: 'string', pattern: '^[A-Z]{3}$', description: 'Three uppercase letters (ISO 4217).' });
const merchantReference = (): JsonSchema => ({ type: ['integer', 'null'], minimum: 1_000_000_000, maximum: 9_999_999_999, description: 'Exactly 10 digits.' });
const failureCode = (isNullable: boolean): JsonSchema => openEnum(FAILURE_CODES,
  'Operation failure code; not an HTTP error code. New codes may appear: treat an unknown one as a failure without a specific reason.', isNullable);
export const strictObject = (description: string, properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  additionalProperties: false,
});
const list = (description: string, item: string, url: string, extra: Record<string, JsonSchema> = {}): JsonSchema => strictObject(description, {
  object: { const: 'list' },
  data: { type: 'array', items: schemaRef(item) },
  has_more: { type: 'boolean', description: 'Whether more pages exist; a page may be shorter than `limit` even when true.' },
  ...extra,
  url: { const: url },
});

function paymentSchemas(): Record<string, JsonSchema> {
  const payment = strictObject('A Payment, the current shape: answered for `Service-Version: 2025-09-01`.', {
    id: { type: 'string', pattern: '^pay_[A-Za-z0-9]{24}$' },
    amount: minorUnits(1, 'Minor units.'),
    currency: { ...uppercaseCurrency(), description: 'The currency of the request, canonical uppercase.' },
    status: { type: 'string', enum: [...PAYMENT_STATUSES] },
    integration_type: { type: 'string', enum: Object.keys(INTEGRATION_TYPES) },
    merchant_reference: merchantReference(),
    description: { type: ['string', 'null'] },
    card: nullable(schemaRef('Card'), 'Masked; `null` before card details are available.'),
    billing_details: nullable(schemaRef('BillingDetails')),
    failure_code: failureCode(true),
    failure_message: { type: ['string', 'null'] },
    amount_refunded: minorUnits(0, 'Total successfully refunded.'),
    amount_refundable: minorUnits(0, 'Still refundable: `amount` minus succeeded and in-progress refunds, for a `SUCCEEDED` Payment; 0 otherwise.'),
    refunds: { type: 'array', items: schemaRef('Refund'), description: 'Oldest first.' },
    status_transitions: schemaRef('StatusTransitions'),
    created_at: timestamp(false),
    livemode: { type: 'boolean', description: 'False for a test-mode (sandbox) Payment.' },
    next_action: nullable(schemaRef('NextAction'), 'Set exactly when `status` is `REQUIRES_ACTION`; `null` otherwise.'),
  });
  // next_action accompanies REQUIRES_ACTION and nothing else.
  payment.if = partial({ status: { const: 'REQUIRES_ACTION' } });
  payment.then = partial({ next_action: schemaRef('NextAction') });
  payment.else = partial({ next_action: { type: 'null' } });
  return {
    Payment: payment,
    Card: strictObject('Masked card.', {
      brand: { type: 'string', enum: CARD_BRANDS },
      last4: { type: 'string', pattern: '^\\d{4}$' },
      exp_month: { type: 'integer', format: 'int32', minimum: 1, maximum: 12 },
      exp_year: { type: 'integer', format: 'int32' },
      cardholder_name: { type: ['string', 'null'], description: 'The submitted `holder_name` of a Direct Payment.' },
      country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$', description: 'Issuing country (ISO 3166 alpha-2).' },
    }),
    BillingDetails: strictObject('Captured billing details.', {
      email: { type: ['string', 'null'] },
      first_name: { type: ['string', 'null'] },
      last_name: { type: ['string', 'null'] },
      phone: { type: ['string', 'null'], description: 'E.164.' },
      address: nullable(schemaRef('Address')),
    }),
    Address: strictObject('Billing address.', {
      line1: { type: ['string', 'null'] },
      city: { type: ['string', 'null'] },
      postal_code: { type: ['string', 'null'] },
      country: { type: ['string', 'null'] },
    }),
    NextAction: strictObject('What the customer\'s browser must do next.', {
      type: { const: 'redirect' },
      reason: { type: 'string', enum: Object.keys(NEXT_ACTION_REASONS) },
      redirect_url: { type: 'string', format: 'uri', description: 'Opaque; may change while `REQUIRES_ACTION`: redirect again only when it changed.' },
    }),
    StatusTransitions: strictObject('When the Payment first reached each status.', {
      requires_action_at: timestamp(true),
      processing_at: timestamp(true),
      succeeded_at: timestamp(true),
      failed_at: timestamp(true),
      expired_at: timestamp(true),
    }),
    PaymentList: list('A page of Payments, newest first.', 'Payment', '/v1/payments'),
  };
}

function refundSchema(): JsonSchema {
  const refund = strictObject('A Refund. Read through the parent Payment\'s `refunds` array.', {
    id: { type: 'string', pattern: '^ref_[A-Za-z0-9]{24}$' },
    payment_id: { type: 'string', pattern: '^pay_[A-Za-z0-9]{24}$' },
    amount: minorUnits(1, 'Minor units.'),
    currency: { ...uppercaseCurrency(), description: 'The Payment\'s currency.' },
    merchant_reference: merchantReference(),
    reason: { type: 'string', maxLength: 50 },
    refund_type: { type: 'string', enum: Object.keys(REFUND_TYPES), description: '`FULL`: the whole Payment amount with nothing refunded or in progress before; otherwise `PARTIAL`.' },
    status: { type: 'string', enum: Object.keys(REFUND_STATUSES) },
    failure: strictObject('Only on a `FAILED` Refund.', { code: failureCode(false), message: { type: 'string' } }),
    created_at: timestamp(false),
    updated_at: timestamp(false),
    completed_at: timestamp(true, 'Set when the Refund reaches `SUCCEEDED` or `FAILED`.'),
    livemode: { type: 'boolean' },
  }, ['failure']);
  refund.if = partial({ status: { const: 'FAILED' } });
  refund.else = partial({ failure: ABSENT });
  return refund;
}

function payoutSchemas(): Record<string, JsonSchema> {
  const failureOnly = 'Only when `FAILED`; absent otherwise.';
  const payout = strictObject('A Payout. `PENDING` and `PROCESSING` are not final; `SUCCEEDED` and `FAILED` are.', {
    id: { type: 'string', pattern: '^po_[A-Za-z0-9]{24}$' },
    amount: minorUnits(1, 'Minor units.'),
    currency: uppercaseCurrency(),
    status: { type: 'string', enum: [...PAYOUT_STATUSES] },
    merchant_reference: merchantReference(),
    recipient: strictObject('The recipient, names exactly as submitted.', {
      first_name: { type: 'string' },
      last_name: { type: 'string' },
      country: { type: 'string', pattern: '^[A-Z]{2}$' },
    }),
    destination: strictObject('Masked destination card.', {
      brand: { type: 'string', enum: CARD_BRANDS },
      last4: { type: 'string', pattern: '^\\d{4}$' },
      country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$' },
    }),
    failure_code: { ...failureCode(false), description: failureOnly },
    failure_message: { type: 'string', description: failureOnly },
    created_at: timestamp(false),
    updated_at: timestamp(false),
    completed_at: timestamp(true, '`null` until `SUCCEEDED` or `FAILED`.'),
    livemode: { type: 'boolean' },
  }, ['failure_code', 'failure_message']);
  payout.if = partial({ status: { const: 'FAILED' } });
  // The empty property schemas only declare the names `required` refers to (ajv strictRequired).
  payout.then = partial({ failure_code: {}, failure_message: {} }, ['failure_code', 'failure_message']);
  payout.else = partial({ failure_code: ABSENT, failure_message: ABSENT });
  return {
    Payout: payout,
    PayoutList: list('A page of Payouts, newest first.', 'Payout', '/v1/payouts', {
      total_count: { type: 'integer', minimum: 0, description: 'Matching Payouts before pagination.' },
    }),
  };
}

function webhookEndpointSchemas(): Record<string, JsonSchema> {
  const properties = (secret: boolean): Record<string, JsonSchema> => ({
    id: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' },
    object: { const: 'webhook_endpoint' },
    url: { type: 'string', format: 'uri', maxLength: 2048 },
    enabled_events: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'Event types, or `*` for every type.' },
    description: { type: ['string', 'null'], maxLength: 500 },
    api_version: { type: 'string', enum: [...KNOWN_VERSIONS], description: 'The shape of the bodies this endpoint receives.' },
    status: { type: 'string', enum: ['enabled', 'disabled'] },
    created_at: timestamp(false),
    livemode: { type: 'boolean' },
    ...(secret ? { secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'The signing secret. Shown only here: store it.' } } : {}),
  });
  return {
    WebhookEndpoint: strictObject('A webhook endpoint. Its secret is never shown again after the create or a rotation.', properties(false)),
    WebhookEndpointWithSecret: strictObject('A webhook endpoint with its new signing secret (the answer of a create or a rotation).', properties(true)),
    WebhookEndpointList: list('A page of webhook endpoints, newest first.', 'WebhookEndpoint', '/v1/webhook_endpoints'),
    DeletedWebhookEndpoint: strictObject('A deleted webhook endpoint.', {
      id: { type: 'string', pattern: '^we_[A-Za-z0-9]{24}$' },
      object: { const: 'webhook_endpoint' },
      deleted: { const: true },
    }),
  };
}

function errorSchemas(): Record<string, JsonSchema> {
  const allCodes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  const docUrl: JsonSchema = { type: 'string', format: 'uri', pattern: '/docs#error-[a-z_]+$', description: 'Link to this code in the reference: `{base_url}/docs#error-<code>`.' };
  const requestId: JsonSchema = { type: 'string', pattern: REQUEST_ID_PATTERN, description: 'Equals the `Request-Id` header.' };
  const message: JsonSchema = { type: 'string', description: 'For developers; may change. Do not branch on it or show it to customers.' };
  const CODE = 'Stable reason. New codes may appear: branch on the HTTP status when the code is unknown.';
  return {
    Error: strictObject('Error envelope, Shape A. Branch on the HTTP status first, then on `error.code`.', {
      error: strictObject('The error.', {
        code: openEnum(allCodes.filter((code) => !SHAPE_B_ONLY_CODES.has(code)), CODE),
        message,
        param: { type: 'string', description: 'The field (dotted path), header, path or query parameter involved, when there is one.' },
        doc_url: docUrl,
        request_id: requestId,
      }, ['param', 'doc_url']),
    }),
    ErrorB: strictObject('Error envelope, Shape B.', {
      error: strictObject('The error.', {
        type: { type: 'string', enum: ['card_error', 'invalid_request_error', 'api_error'], description: '`card_error` for declines, `api_error` for 5xx, else `invalid_request_error`.' },
        code: openEnum(allCodes, CODE),
        message,
        param: { type: ['string', 'null'] },
        decline_code: openEnum(SHAPE_B_DECLINE_CODES, 'With `card_declined`: why the card was declined. New codes may appear.'),
        doc_url: docUrl,
        request_id: requestId,
      }, ['decline_code']),
    }),
  };
}

function serviceSchemas(): Record<string, JsonSchema> {
  const check = (value: string[]): JsonSchema => ({ type: 'string', enum: value });
  const health = (status: 'ok' | 'unavailable', description: string, checkValues: string[]): JsonSchema => strictObject(description, {
    status: { const: status },
    checks: strictObject('One entry per dependency.', { database: check(checkValues), temporal: check(checkValues) }),
  });
  return {
    HealthOk: health('ok', 'All dependencies answer.', ['ok']),
    HealthUnavailable: health('unavailable', 'A dependency does not answer; it is marked `unavailable`.', ['ok', 'unavailable']),
    OpenApiDocument: {
      type: 'object',
      description: 'An OpenAPI 3.1 document.',
      properties: { openapi: { const: '3.1.0' }, info: { type: 'object' }, paths: { type: 'object' }, components: { type: 'object' } },
      required: ['openapi', 'info', 'paths', 'components'],
    },
  };
}

export function responseSchemas(): Record<string, JsonSchema> {
  return { ...paymentSchemas(), Refund: refundSchema(), ...payoutSchemas(), ...webhookEndpointSchemas(), ...errorSchemas(), ...serviceSchemas() };
}
