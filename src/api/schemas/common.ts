// Joi building blocks shared by every request schema. Custom rules report `any.invalid`, which the
// validation path answers as `parameter_invalid` with the field's dotted path.
import Joi from 'joi';
import { isTestCard, luhnValid } from '../../domain/cards';
import { MAX_AMOUNT, normalizeCurrency } from '../../domain/money';
import { parseIpLiteral } from '../../domain/ip';
import { cspSourceOf } from '../../domain/hosted-page';
import { characterCount } from '../../domain/text';

/**
 * What a custom rule means in JSON Schema, which joi-to-json cannot see: the OpenAPI document lays
 * this meta over the generated schema of the field (src/api/openapi/request-schemas.ts).
 */
export const JSON_SCHEMA_META = 'x-json-schema';
export const documented = (schema: Record<string, unknown>) => ({ [JSON_SCHEMA_META]: schema });

/** A string of at most `max` characters, counted as code points (domain/text.ts), not UTF-16 units. */
export const text = (max: number) => Joi.string().custom((value: string, helpers) => {
  return characterCount(value) <= max ? value : helpers.error('text.max', { limit: max });
}).meta(documented({ maxLength: max }))
  .messages({ 'text.max': '{{#label}} length must be less than or equal to {{#limit}} characters long' });

/** Minor units; beyond 32 bits, which generated clients must know (`format: int64`). */
export const amount = () => Joi.number().integer().min(1).max(MAX_AMOUNT).meta(documented({ format: 'int64' }))
  .description('Minor units of the currency (its ISO 4217 exponent).');

/** What `currency()` accepts, as the document states it. */
export const CURRENCY_PATTERN = '^\\s*[A-Za-z]{3}\\s*$';

export const currency = () => Joi.string().min(3).max(16).custom((value: string, helpers) => {
  return normalizeCurrency(value) ? value : helpers.error('any.invalid');
}).meta(documented({ pattern: CURRENCY_PATTERN }))
  .messages({ 'any.invalid': '{{#label}} must be a three-letter ISO 4217 currency code' })
  .description('Three-letter ISO 4217 code, case-insensitive, surrounding whitespace allowed. Not three letters after trimming: '
    + '`parameter_invalid`; not enabled for the account: `422 currency_not_supported`.');

export const merchantReference = () => Joi.number().integer().min(1_000_000_000).max(9_999_999_999)
  .allow(null)
  .meta(documented({ format: 'int64' }))
  .messages({ 'number.min': '{{#label}} must have exactly 10 digits', 'number.max': '{{#label}} must have exactly 10 digits' })
  .description('Exactly 10 digits. Not an idempotency mechanism.');

export const IP_LITERAL = 'One literal IPv4 or IPv6 address: no hostname, port, zone or comma-separated list.';

export const ipAddress = () => Joi.string().min(3).max(45).custom((value: string, helpers) => {
  return parseIpLiteral(value) ? value : helpers.error('any.invalid');
}).messages({ 'any.invalid': '{{#label}} must be one literal IPv4 or IPv6 address, without port, zone or list' })
  .description(IP_LITERAL);

/**
 * Absolute https URL; plain http only for localhost in test mode (docs/api-reference.md, "Money and
 * bounds"). A URL the shopper's browser returns to must also have a host a CSP header can carry: the
 * hosted page allows its origin in `form-action`.
 */
const httpsUrl = (browserReturn: boolean) => text(2048).custom((value: string, helpers) => {
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
  if (browserReturn && cspSourceOf(value) === null) return helpers.error('url.host');
  return value;
}).meta(documented({ maxLength: 2048, format: 'uri' })).messages({
  'any.invalid': '{{#label}} must be an absolute https URL',
  'url.host': '{{#label}} must have a host of letters, digits, hyphens and dots (a domain name or an IPv4 address)',
});

/** Where the shopper's browser returns (Shape A `return_url`, Shape B `redirect_url`). */
export const returnUrl = () => httpsUrl(true)
  .description('Absolute `https` URL without credentials (plain `http` only for `localhost`/`127.0.0.1` with a test key), '
    + 'whose host is letters, digits, hyphens and dots (a domain name or an IPv4 address). '
    + 'Where the browser returns, with `payment_id` added; the return never proves payment success.');

/** Where the server POSTs a result (Shape B `callback_url`); its destination rules are the webhooks'. */
export const callbackUrl = () => httpsUrl(false);

export const cardNumber = () => Joi.string().pattern(/^\d{12,19}$/).custom((value: string, helpers) => {
  if (!luhnValid(value)) return helpers.error('card.luhn');
  const livemode = Boolean((helpers.prefs.context as { livemode?: boolean } | undefined)?.livemode);
  if (livemode && isTestCard(value)) return helpers.error('card.test');
  return value;
}).messages({
  'string.pattern.base': '{{#label}} must be 12 to 19 digits',
  'card.luhn': '{{#label}} is not a valid card number',
  'card.test': '{{#label}} is a test card, which cannot be used with a live API key',
}).description('12 to 19 digits, Luhn-valid. A test card with a live key is `parameter_invalid`. Not part of the idempotent identity.');

export const cardExpMonth = () => Joi.number().integer().min(1).max(12).description('Expiry month, 1 to 12.');
export const cardExpYear = () => Joi.number().integer().min(1000).max(9999)
  .messages({ 'number.min': '{{#label}} must have four digits', 'number.max': '{{#label}} must have four digits' })
  .description('Four digits. An expired card gives a `FAILED` Payment with `expired_card`, not an HTTP error.');
export const cardCvc = () => Joi.string().pattern(/^\d{3,4}$/).messages({ 'string.pattern.base': '{{#label}} must be 3 or 4 digits' })
  .description('3 or 4 digits. Never stored.');

export const email = () => text(255).email({ tlds: { allow: false } }).allow(null).description('E-mail address.');
export const personName = () => text(255).allow(null);
export const phone = () => Joi.string().max(16).pattern(/^\+[1-9]\d{1,14}$/).allow(null)
  .messages({ 'string.pattern.base': '{{#label}} must be an E.164 number such as +14155550123' })
  .description('E.164: a plus sign, then 2 to 15 digits, the first not zero.');
export const addressLine = () => text(255).allow(null);
export const postalCode = () => text(32).allow(null).description('Postal code.');
export const countryCode = () => Joi.string().pattern(/^[A-Za-z]{2}$/).allow(null)
  .messages({ 'string.pattern.base': '{{#label}} must be a two-letter ISO country code' })
  .description('Two-letter ISO 3166 country code.');

export const billingDetails = () => Joi.object({
  email: email(),
  first_name: personName().description('Given name.'),
  last_name: personName().description('Family name.'),
  phone: phone(),
  address: Joi.object({
    line1: addressLine().description('Street and number.'),
    city: addressLine().description('City.'),
    postal_code: postalCode(),
    country: countryCode(),
  }).allow(null).description('Billing address.'),
}).allow(null).description('The customer\'s billing details.');

export const description = () => text(500).allow(null).description('Merchant description.');
export const merchantCustomerId = () => text(255).min(1).allow(null).description('Your own id of the customer.');

/** A Unix time in seconds, as list filters take it (`created[gte]`, `created[lt]`). */
export const unixSeconds = () => Joi.number().integer().min(0).max(99_999_999_999).meta(documented({ format: 'int64' }));

export const createdGte = () => unixSeconds().description('Created at or after this Unix timestamp (inclusive).');
export const createdLt = () => unixSeconds().description('Created before this Unix timestamp (exclusive).');
export const pageLimit = () => Joi.number().integer().min(1).max(100).default(10).description('Page size.');

const MAX_REPEATS = 20;

/**
 * A repeatable query parameter (`status=A&status=B`, or one value): each value must match `item`
 * (an enum, so the document types it as an array of that enum) and is then normalized by `parse`;
 * duplicates are dropped. `message` answers a value `item` or `parse` refuses.
 */
export function repeatable<T>(item: Joi.StringSchema, parse: (value: string) => T | null, message: string) {
  return Joi.array().items(item).single().max(MAX_REPEATS).custom((values: string[], helpers) => {
    const parsed: T[] = [];
    for (const value of values) {
      const normalized = parse(value);
      if (normalized === null) return helpers.error('any.invalid');
      if (!parsed.includes(normalized)) parsed.push(normalized);
    }
    return parsed;
  }).messages({ 'any.invalid': message, 'any.only': message, 'array.max': `{{#label}} may be given at most ${MAX_REPEATS} times` });
}

/** A repeatable filter whose values are `values` (case-insensitive when asked), normalized to their canonical spelling. */
export function repeatableEnum<T extends string>(values: readonly T[], options: { insensitive?: boolean } = {}) {
  const item = Joi.string().valid(...values);
  return repeatable<T>(options.insensitive ? item.insensitive() : item, (value) => value as T, `{{#label}} must be one of ${values.join(', ')}`);
}
