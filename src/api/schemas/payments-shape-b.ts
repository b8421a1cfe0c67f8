// Request schemas of the Shape B Payment operations (docs/shape-b.md). Built from the same blocks
// as Shape A's, so a field means the same in both.
import Joi from 'joi';
import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_VALUE_LENGTH } from '../../domain/payment-shape-b';
import { characterCount } from '../../domain/text';
import {
  addressLine, amount, cardCvc, cardExpMonth, cardExpYear, cardNumber, countryCode, description, email, personName, phone, postalCode, returnUrl, text,
} from './common';

/** Shape B spells currencies in lowercase only. */
const lowercaseCurrency = () => Joi.string().pattern(/^[a-z]{3}$/)
  .messages({ 'string.pattern.base': '{{#label}} must be three lowercase letters (ISO 4217), such as usd' });

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
  }).required(),
}).required();

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
  redirect_url: returnUrl().required(),
  customer: Joi.object({
    email: email(),
    first_name: personName(),
    last_name: personName(),
    country: countryCode(),
    phone: phone(),
    address: addressLine(),
    city: addressLine(),
    zip: postalCode(),
  }).allow(null),
  description: description(),
  metadata: metadata(),
  callback_url: returnUrl().allow(null),
}).required();
