// Request schemas of the Payout operations (docs/api-reference.md, "Payouts" and "Lists"). The
// destination card number is only checked for its JSON type here: whether it is a usable card is a
// business rule (`invalid_card` / `unsupported_card`), answered after the idempotency state.
import Joi from 'joi';
import type { CardBrand } from '../../domain/cards';
import { isId } from '../../domain/ids';
import type { PayoutRequest } from '../../domain/idempotency';
import { MAX_AMOUNT, isIsoCurrency, normalizeCurrency } from '../../domain/money';
import { isValidRecipientName, PAYOUT_STATUSES, type PayoutStatus } from '../../domain/payout';
import { isValidSearch, MAX_SEARCH_LENGTH, parsePayoutSearch } from '../../domain/payout-search';
import type { PayoutListQuery } from '../../services/payouts';
import { amount, createdGte, createdLt, currency, CURRENCY_PATTERN, documented, IP_LITERAL, ipAddress, merchantReference, pageLimit, repeatable, repeatableEnum } from './common';

/** The parsed body; its identity is made from the same shape (src/domain/idempotency.ts). */
export type CreatePayoutRequest = PayoutRequest;

// No trimming or normalization: the name is kept exactly as sent.
const recipientName = () => Joi.string().custom((value: string, helpers) => {
  return isValidRecipientName(value) ? value : helpers.error('any.invalid');
}).meta(documented({ minLength: 1, maxLength: 255 }))
  .messages({ 'any.invalid': '{{#label}} must be 1 to 255 characters with at least one that is not whitespace' })
  .description('1 to 255 characters, at least one not whitespace. Kept exactly as sent, no trimming.');

export const createPayoutSchema = Joi.object<CreatePayoutRequest>({
  amount: amount().required(),
  currency: currency().required(),
  initiator_ip_address: ipAddress().required().description(`IP address of the person initiating the Payout. ${IP_LITERAL}`),
  recipient: Joi.object({
    first_name: recipientName().required(),
    last_name: recipientName().required(),
    country: Joi.string().pattern(/^[A-Za-z]{2}$/).required()
      .messages({ 'string.pattern.base': '{{#label}} must be a two-letter ISO country code' })
      .description('Two-letter ISO 3166 country code, case-insensitive.'),
  }).required().description('Who receives the funds.'),
  destination: Joi.object({
    card_number: Joi.string().allow('').required()
      .description('A Visa or Mastercard number, 12 to 19 digits, Luhn-valid. Invalid: `422 invalid_card`; another brand: '
        + '`422 unsupported_card` (both with param `destination.card_number`).'),
  }).required().description('The card the funds go to.'),
  merchant_reference: merchantReference(),
}).required().description('A Payout to a Visa or Mastercard card.');

const CARD_BRANDS: readonly CardBrand[] = ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'JCB', 'DINERS', 'UNIONPAY', 'UNKNOWN'];
const minorAmount = () => Joi.number().integer().min(0).max(MAX_AMOUNT).meta(documented({ format: 'int64' }));
const payoutCursor = () => Joi.string().custom((value: string, helpers) => (isId('payout', value) ? value : helpers.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be a Payout id (po_ followed by 24 letters or digits)' });

export interface ListPayoutsQuery {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  search?: string;
  status?: PayoutStatus[];
  currency?: string[];
  card_brand?: CardBrand[];
  card_last4?: string;
  'created[gte]'?: number;
  'created[lt]'?: number;
  'amount[gte]'?: number;
  'amount[lte]'?: number;
}

/** GET /v1/payouts. Combinations of parameters are checked by the route. */
export const listPayoutsQuerySchema = Joi.object<ListPayoutsQuery>({
  limit: pageLimit(),
  starting_after: payoutCursor().description('Payout id (`po_` and 24 letters or digits): the page after it. Not with `ending_before`.'),
  ending_before: payoutCursor().description('Payout id: the page before it. Not with `starting_after`.'),
  search: Joi.string().custom((value: string, helpers) => (isValidSearch(value) ? value : helpers.error('any.invalid')))
    .meta(documented({ minLength: 1, maxLength: MAX_SEARCH_LENGTH }))
    .messages({ 'any.invalid': `{{#label}} must be 1 to ${MAX_SEARCH_LENGTH} characters without control characters` })
    .description(`Literal, case-insensitive text (\`%\` and \`_\` are plain characters), at most ${MAX_SEARCH_LENGTH} characters, no control characters.`),
  status: repeatableEnum(PAYOUT_STATUSES).description('Repeatable: Payouts in any of these statuses.'),
  currency: repeatable(Joi.string().meta(documented({ pattern: CURRENCY_PATTERN })), (v) => {
    const code = normalizeCurrency(v);
    return code !== null && isIsoCurrency(code) ? code : null;
  }, '{{#label}} must be a three-letter ISO 4217 currency code').description('Repeatable ISO 4217 code, case-insensitive.'),
  card_brand: repeatableEnum(CARD_BRANDS, { insensitive: true }).description('Repeatable: destination card brands (case-insensitive).'),
  card_last4: Joi.string().pattern(/^\d{4}$/).messages({ 'string.pattern.base': '{{#label}} must be four digits' })
    .description('Last four digits of the destination card.'),
  'created[gte]': createdGte(),
  'created[lt]': createdLt(),
  'amount[gte]': minorAmount().description('Amount at least this many minor units.'),
  'amount[lte]': minorAmount().description('Amount at most this many minor units.'),
});

/** The read model's list query for a validated `GET /v1/payouts` query string. */
export function payoutListQuery(query: ListPayoutsQuery): PayoutListQuery {
  const currencies = query.currency ?? [];
  return {
    limit: query.limit,
    startingAfter: query.starting_after,
    endingBefore: query.ending_before,
    filters: {
      statuses: query.status ?? [],
      currencies,
      brands: query.card_brand ?? [],
      last4: query.card_last4,
      createdGte: query['created[gte]'],
      createdLt: query['created[lt]'],
      amountGte: query['amount[gte]'],
      amountLte: query['amount[lte]'],
      search: query.search === undefined ? undefined : parsePayoutSearch(query.search, currencies),
    },
  };
}
