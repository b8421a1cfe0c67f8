// Request schemas of the Payout operations (docs/api-reference.md, "Payouts" and "Lists"). The
// destination card number is only checked for its JSON type here: whether it is a usable card is a
// business rule (`invalid_card` / `unsupported_card`), answered after the idempotency state.
import Joi from 'joi';
import type { CardBrand } from '../../domain/cards';
import { isId } from '../../domain/ids';
import { MAX_AMOUNT, isIsoCurrency, normalizeCurrency } from '../../domain/money';
import { isPayoutStatus, isValidRecipientName, PAYOUT_STATUSES, type PayoutStatus } from '../../domain/payout';
import { isValidSearch, MAX_SEARCH_LENGTH } from '../../domain/payout-search';
import { amount, currency, ipAddress, merchantReference, repeatable, unixSeconds } from './common';

export interface CreatePayoutRequest {
  amount: number;
  currency: string;
  initiator_ip_address: string;
  recipient: { first_name: string; last_name: string; country: string };
  destination: { card_number: string };
  merchant_reference?: number | null;
}

// No trimming or normalization: the name is kept exactly as sent.
const recipientName = () => Joi.string().custom((value: string, helpers) => {
  return isValidRecipientName(value) ? value : helpers.error('any.invalid');
}).messages({ 'any.invalid': '{{#label}} must be 1 to 255 characters with at least one that is not whitespace' });

export const createPayoutSchema = Joi.object<CreatePayoutRequest>({
  amount: amount().required(),
  currency: currency().required(),
  initiator_ip_address: ipAddress().required(),
  recipient: Joi.object({
    first_name: recipientName().required(),
    last_name: recipientName().required(),
    country: Joi.string().pattern(/^[A-Za-z]{2}$/).required()
      .messages({ 'string.pattern.base': '{{#label}} must be a two-letter ISO country code' }),
  }).required(),
  destination: Joi.object({
    card_number: Joi.string().allow('').required(),
  }).required(),
  merchant_reference: merchantReference(),
}).required();

const CARD_BRANDS: readonly CardBrand[] = ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'JCB', 'DINERS', 'UNIONPAY', 'UNKNOWN'];
const minorAmount = () => Joi.number().integer().min(0).max(MAX_AMOUNT);
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
  limit: Joi.number().integer().min(1).max(100).default(10),
  starting_after: payoutCursor(),
  ending_before: payoutCursor(),
  search: Joi.string().custom((value: string, helpers) => (isValidSearch(value) ? value : helpers.error('any.invalid')))
    .messages({ 'any.invalid': `{{#label}} must be 1 to ${MAX_SEARCH_LENGTH} characters without control characters` }),
  status: repeatable((v) => (isPayoutStatus(v) ? v : null), `{{#label}} must be one of ${PAYOUT_STATUSES.join(', ')}`),
  currency: repeatable((v) => {
    const code = normalizeCurrency(v);
    return code !== null && isIsoCurrency(code) ? code : null;
  }, '{{#label}} must be a three-letter ISO 4217 currency code'),
  card_brand: repeatable((v) => {
    const brand = v.trim().toUpperCase() as CardBrand;
    return CARD_BRANDS.includes(brand) ? brand : null;
  }, `{{#label}} must be one of ${CARD_BRANDS.join(', ')}`),
  card_last4: Joi.string().pattern(/^\d{4}$/).messages({ 'string.pattern.base': '{{#label}} must be four digits' }),
  'created[gte]': unixSeconds(),
  'created[lt]': unixSeconds(),
  'amount[gte]': minorAmount(),
  'amount[lte]': minorAmount(),
});
