// Joi building blocks shared by every request schema. Custom rules report `any.invalid`, which the
// validation path answers as `parameter_invalid` with the field's dotted path.
import Joi from 'joi';
import { isTestCard, luhnValid } from '../../domain/cards';
import { MAX_AMOUNT, normalizeCurrency } from '../../domain/money';
import { parseIpLiteral } from '../../domain/ip';
import { characterCount } from '../../domain/text';

/** Where `text()` leaves its bound for the OpenAPI document, which states it as `maxLength` (code points there too). */
export const MAX_CHARACTERS_META = 'x-max-characters';

/** A string of at most `max` characters, counted as code points (domain/text.ts), not UTF-16 units. */
export const text = (max: number) => Joi.string().custom((value: string, helpers) => {
  return characterCount(value) <= max ? value : helpers.error('text.max', { limit: max });
}).meta({ [MAX_CHARACTERS_META]: max })
  .messages({ 'text.max': '{{#label}} length must be less than or equal to {{#limit}} characters long' });

export const amount = () => Joi.number().integer().min(1).max(MAX_AMOUNT);

export const currency = () => Joi.string().min(3).max(16).custom((value: string, helpers) => {
  return normalizeCurrency(value) ? value : helpers.error('any.invalid');
}).messages({ 'any.invalid': '{{#label}} must be a three-letter ISO 4217 currency code' });

export const merchantReference = () => Joi.number().integer().min(1_000_000_000).max(9_999_999_999)
  .allow(null)
  .messages({ 'number.min': '{{#label}} must have exactly 10 digits', 'number.max': '{{#label}} must have exactly 10 digits' });

export const ipAddress = () => Joi.string().min(3).max(45).custom((value: string, helpers) => {
  return parseIpLiteral(value) ? value : helpers.error('any.invalid');
}).messages({ 'any.invalid': '{{#label}} must be one literal IPv4 or IPv6 address, without port, zone or list' });

/** Absolute https URL; plain http only for localhost in test mode (docs/api-reference.md). */
export const returnUrl = () => text(2048).custom((value: string, helpers) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return helpers.error('any.invalid');
  }
  const livemode = Boolean((helpers.prefs.context as { livemode?: boolean } | undefined)?.livemode);
  const localHttp = url.protocol === 'http:' && !livemode && (url.hostname === 'localhost' || url.hostname === '127.0.0.1');
  if (url.protocol !== 'https:' && !localHttp) return helpers.error('any.invalid');
  if (url.username || url.password) return helpers.error('any.invalid');
  return value;
}).messages({ 'any.invalid': '{{#label}} must be an absolute https URL' });

export const cardNumber = () => Joi.string().pattern(/^\d{12,19}$/).custom((value: string, helpers) => {
  if (!luhnValid(value)) return helpers.error('card.luhn');
  const livemode = Boolean((helpers.prefs.context as { livemode?: boolean } | undefined)?.livemode);
  if (livemode && isTestCard(value)) return helpers.error('card.test');
  return value;
}).messages({
  'string.pattern.base': '{{#label}} must be 12 to 19 digits',
  'card.luhn': '{{#label}} is not a valid card number',
  'card.test': '{{#label}} is a test card, which cannot be used with a live API key',
});

export const cardExpMonth = () => Joi.number().integer().min(1).max(12);
export const cardExpYear = () => Joi.number().integer().min(1000).max(9999)
  .messages({ 'number.min': '{{#label}} must have four digits', 'number.max': '{{#label}} must have four digits' });
export const cardCvc = () => Joi.string().pattern(/^\d{3,4}$/).messages({ 'string.pattern.base': '{{#label}} must be 3 or 4 digits' });

export const email = () => text(255).email({ tlds: { allow: false } }).allow(null);
export const personName = () => text(255).allow(null);
export const phone = () => Joi.string().max(16).pattern(/^\+[1-9]\d{1,14}$/).allow(null)
  .messages({ 'string.pattern.base': '{{#label}} must be an E.164 number such as +14155550123' });
export const addressLine = () => text(255).allow(null);
export const postalCode = () => text(32).allow(null);
export const countryCode = () => Joi.string().pattern(/^[A-Za-z]{2}$/).allow(null)
  .messages({ 'string.pattern.base': '{{#label}} must be a two-letter ISO country code' });

export const billingDetails = () => Joi.object({
  email: email(),
  first_name: personName(),
  last_name: personName(),
  phone: phone(),
  address: Joi.object({
    line1: addressLine(),
    city: addressLine(),
    postal_code: postalCode(),
    country: countryCode(),
  }).allow(null),
}).allow(null);

export const description = () => text(500).allow(null);
export const merchantCustomerId = () => text(255).min(1).allow(null);

/** A Unix time in seconds, as list filters take it (`created[gte]`, `created[lt]`). */
export const unixSeconds = () => Joi.number().integer().min(0).max(99_999_999_999);

const MAX_REPEATS = 20;

/** A repeatable query parameter: each value normalized by `parse` (null = invalid), duplicates dropped. */
export function repeatable<T>(parse: (value: string) => T | null, message: string) {
  return Joi.array().items(Joi.string().allow('')).single().max(MAX_REPEATS).custom((values: string[], helpers) => {
    const parsed: T[] = [];
    for (const value of values) {
      const item = parse(value);
      if (item === null) return helpers.error('any.invalid');
      if (!parsed.includes(item)) parsed.push(item);
    }
    return parsed;
  }).messages({ 'any.invalid': message, 'array.max': `{{#label}} may be given at most ${MAX_REPEATS} times` });
}
