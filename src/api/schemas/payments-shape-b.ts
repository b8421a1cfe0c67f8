// Request schemas of the Shape B Payment operations (docs/shape-b.md). Built from the same blocks
// as Shape A's, so a field means the same in both.
import Joi from 'joi';
import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_VALUE_LENGTH } from '../../domain/payment-shape-b';
import { characterCount } from '../../domain/text';
import {
  addressLine, amount, callbackUrl, cardCvc, cardExpMonth, cardExpYear, cardNumber, countryCode, description, documented, email, personName, phone, postalCode, returnUrl, text,
} from './common';

/** Shape B spells currencies in lowercase only. */
const lowercaseCurrency = () => Joi.string().pattern(/^[a-z]{3}$/)
  .messages({ 'string.pattern.base': '{{#label}} must be three lowercase letters (ISO 4217), such as usd' })
  .description('Three lowercase letters (ISO 4217). Not enabled for the account: `422 currency_not_supported`.');

export interface DirectPaymentRequestB {
  amount: number;
  currency: string;
  card: { number: string; exp_month: number; exp_year: number; cvc: string };
}

export const directPaymentSchemaB = Joi.object<DirectPaymentRequestB>({
  amount: amount().required(),
  currency: lowercaseCurrency().required(),
  card: Joi.object({
    number: cardNumber().required(),
    exp_month: cardExpMonth().required(),
    exp_year: cardExpYear().required(),
    cvc: cardCvc().required(),
  }).required().description('The card, from your PCI environment.'),
}).required().description('Shape B Direct Payment. The answer waits for the outcome; there is no 3D Secure step.');

export interface CustomerB {
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  country?: string | null;
  phone?: string | null;
  address?: string | null;
  city?: string | null;
  zip?: string | null;
}

/**
 * String keys and string values. A value of another JSON type is structural (`request_body_invalid`
 * at `metadata.<key>`); too many keys, a long key or a long value are `parameter_invalid`.
 */
const metadata = () => Joi.object()
  .max(METADATA_MAX_KEYS)
  .pattern(Joi.string(), text(METADATA_MAX_VALUE_LENGTH))
  // joi-to-json cannot see keys matched by a schema.
  .meta(documented({
    maxProperties: METADATA_MAX_KEYS,
    propertyNames: { minLength: 1, maxLength: METADATA_MAX_KEY_LENGTH },
    additionalProperties: { type: 'string', maxLength: METADATA_MAX_VALUE_LENGTH },
  }))
  .description(`String keys and values: at most ${METADATA_MAX_KEYS} keys, keys 1 to ${METADATA_MAX_KEY_LENGTH} characters, values at most ${METADATA_MAX_VALUE_LENGTH}.`)
  .custom((value: Record<string, string>, helpers) => {
    const tooLong = Object.keys(value).find((key) => key.length === 0 || characterCount(key) > METADATA_MAX_KEY_LENGTH);
    return tooLong === undefined ? value : helpers.error('metadata.key');
  })
  .allow(null)
  .messages({
    'object.max': `{{#label}} must have at most ${METADATA_MAX_KEYS} keys`,
    'metadata.key': `{{#label}} keys must be 1 to ${METADATA_MAX_KEY_LENGTH} characters`,
  });

export interface HostedPaymentRequestB {
  amount: number;
  currency: string;
  redirect_url: string;
  customer?: CustomerB | null;
  description?: string | null;
  metadata?: Record<string, string> | null;
  callback_url?: string | null;
}

export const hostedPaymentSchemaB = Joi.object<HostedPaymentRequestB>({
  amount: amount().required(),
  currency: lowercaseCurrency().required(),
  redirect_url: returnUrl().required()
    .description('Where the browser returns, with `payment_id` and `status` added. Absolute `https` URL (plain `http` only for '
      + '`localhost`/`127.0.0.1` with a test key), its host a domain name or an IPv4 address.'),
  customer: Joi.object({
    email: email(),
    first_name: personName().description('Given name.'),
    last_name: personName().description('Family name.'),
    country: countryCode(),
    phone: phone(),
    address: addressLine().description('Street and number.'),
    city: addressLine().description('City.'),
    zip: postalCode(),
  }).allow(null).description('Prefills the hosted form.'),
  description: description(),
  metadata: metadata(),
  callback_url: callbackUrl().allow(null)
    .description('Receives the resulting Shape B payment by POST on completion, signed like webhooks. Absolute `https` URL.'),
}).required().description('Shape B Hosted Payment Page payment.');
