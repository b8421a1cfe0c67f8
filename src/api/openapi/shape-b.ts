// Shape B (Service-Version 2024-06-01) request and payment schemas, written by hand from
// docs/shape-b.md, because this version of the service has no Shape B joi schemas or serializers to
// generate them from. When those exist, generate the requests from the joi schemas as Shape A's are.
import { MAX_AMOUNT } from '../../domain/money';
import { SHAPE_B_DECLINE_CODES } from '../../domain/payment-shape-b';
import { CARD_BRANDS, nullable, timestamp } from './response-schemas';
import { openEnum, schemaRef, type JsonSchema } from './types';

const SHAPE_B_STATUSES = ['pending', 'succeeded', 'failed', 'refunded'];
const METADATA_MAX_KEYS = 50;
const METADATA_MAX_KEY_LENGTH = 40;
const METADATA_MAX_VALUE_LENGTH = 500;

const metadata = (): JsonSchema => ({
  type: 'object',
  description: `String keys and values: at most ${METADATA_MAX_KEYS} keys, keys at most ${METADATA_MAX_KEY_LENGTH} characters, values at most ${METADATA_MAX_VALUE_LENGTH}.`,
  maxProperties: METADATA_MAX_KEYS,
  propertyNames: { type: 'string', maxLength: METADATA_MAX_KEY_LENGTH },
  additionalProperties: { type: 'string', maxLength: METADATA_MAX_VALUE_LENGTH },
});

const amount = (): JsonSchema => ({ type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units.' });
const lowercaseCurrency = (): JsonSchema => ({ type: 'string', pattern: '^[a-z]{3}$', description: 'Three lowercase letters (ISO 4217).' });
const nullableString = (maxLength: number, description?: string): JsonSchema => ({ type: ['string', 'null'], maxLength, ...(description ? { description } : {}) });

export function shapeBSchemas(): Record<string, JsonSchema> {
  return {
    DirectPaymentRequestB: {
      type: 'object',
      description: 'Shape B Direct Payment. The answer waits for the outcome; there is no 3D Secure step.',
      properties: {
        amount: amount(),
        currency: lowercaseCurrency(),
        card: {
          type: 'object',
          properties: {
            number: { type: 'string', pattern: '^\\d{12,19}$', description: 'Luhn-valid.' },
            exp_month: { type: 'integer', minimum: 1, maximum: 12 },
            exp_year: { type: 'integer', minimum: 1000, maximum: 9999 },
            cvc: { type: 'string', pattern: '^\\d{3,4}$' },
          },
          required: ['number', 'exp_month', 'exp_year', 'cvc'],
          additionalProperties: false,
        },
      },
      required: ['amount', 'currency', 'card'],
      additionalProperties: false,
    },
    HostedPaymentRequestB: {
      type: 'object',
      description: 'Shape B Hosted Payment Page payment.',
      properties: {
        amount: amount(),
        currency: lowercaseCurrency(),
        redirect_url: { type: 'string', format: 'uri', maxLength: 2048, description: 'Where the browser returns, with `payment_id` and `status` added.' },
        customer: {
          type: 'object',
          description: 'Prefills the hosted form.',
          properties: {
            email: { type: ['string', 'null'], format: 'email', maxLength: 255 },
            first_name: nullableString(255),
            last_name: nullableString(255),
            country: { type: ['string', 'null'], pattern: '^[A-Za-z]{2}$' },
            phone: { type: ['string', 'null'], maxLength: 16, pattern: '^\\+[1-9]\\d{1,14}$', description: 'E.164.' },
            address: nullableString(255),
            city: nullableString(255),
            zip: nullableString(32),
          },
          additionalProperties: false,
        },
        description: nullableString(500),
        metadata: metadata(),
        callback_url: { type: ['string', 'null'], format: 'uri', maxLength: 2048, description: 'Receives the resulting Shape B payment by POST on completion, signed like webhooks.' },
      },
      required: ['amount', 'currency', 'redirect_url'],
      additionalProperties: false,
    },
    PaymentB: {
      type: 'object',
      description: 'A payment in Shape B: answered for `Service-Version: 2024-06-01`. `pending` covers '
        + 'PENDING, REQUIRES_ACTION and PROCESSING; `failed` covers FAILED and EXPIRED; `refunded` once refunds that are not '
        + 'failed cover the whole amount.',
      properties: {
        id: { type: 'string', pattern: '^pay_[A-Za-z0-9-]+$' },
        object: { const: 'payment' },
        amount: { ...amount(), format: 'int64' },
        currency: lowercaseCurrency(),
        status: { type: 'string', enum: SHAPE_B_STATUSES },
        description: { type: ['string', 'null'] },
        card: nullable(schemaRef('CardB'), '`null` for hosted payments not yet completed.'),
        customer: schemaRef('CustomerB'),
        metadata: metadata(),
        decline_code: openEnum(SHAPE_B_DECLINE_CODES, 'Why the card was declined; `null` unless declined. New codes may appear.', true),
        decline_message: { type: ['string', 'null'] },
        redirect_url: { type: ['string', 'null'], format: 'uri', description: 'Hosted page URL for hosted payments; `null` for direct payments.' },
        refunded_at: timestamp(true),
        succeeded_at: timestamp(true),
        failed_at: timestamp(true),
        created: timestamp(false),
        livemode: { type: 'boolean', description: 'True for a live key, false for a test key.' },
      },
      required: ['id', 'object', 'amount', 'currency', 'status', 'description', 'card', 'customer', 'metadata', 'decline_code',
        'decline_message', 'redirect_url', 'refunded_at', 'succeeded_at', 'failed_at', 'created', 'livemode'],
      additionalProperties: false,
    },
    CardB: {
      type: 'object',
      description: 'Masked card, Shape B: lowercase brand.',
      properties: {
        brand: { type: 'string', enum: CARD_BRANDS.map((brand) => brand.toLowerCase()) },
        last4: { type: 'string', pattern: '^\\d{4}$' },
        exp_month: { type: 'integer', minimum: 1, maximum: 12 },
        exp_year: { type: 'integer' },
        country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$' },
      },
      required: ['brand', 'last4', 'exp_month', 'exp_year', 'country'],
      additionalProperties: false,
    },
    CustomerB: {
      type: 'object',
      properties: { email: { type: ['string', 'null'] }, name: { type: ['string', 'null'] } },
      required: ['email', 'name'],
      additionalProperties: false,
    },
    PaymentListB: {
      type: 'object',
      description: 'A page of Shape B payments, newest first.',
      properties: {
        object: { const: 'list' },
        data: { type: 'array', items: schemaRef('PaymentB') },
        has_more: { type: 'boolean' },
        url: { const: '/v1/payments' },
      },
      required: ['object', 'data', 'has_more', 'url'],
      additionalProperties: false,
    },
  };
}
