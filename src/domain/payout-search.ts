// Payout list search (docs/api-reference.md, "Lists"): literal, case-insensitive text across payout
// ids, merchant references and recipient names; four digits also match the destination's last four;
// with exactly one currency filter, a number also matches an exact major-unit amount. Pure.
//
// Storage: each payout row keeps `search_text`, the lowercased searchable fields joined by a line
// feed. A search is one `LIKE '%text%'` on that column with `%`, `_` and the escape character
// escaped, so every character of the search is literal. A search may not contain control
// characters, so it can never match across two fields.
import { currencyExponent, parseMajorAmount } from './money';

export const MAX_SEARCH_LENGTH = 512;
export const LIKE_ESCAPE = '!';

const FIELD_SEPARATOR = '\n';
const CONTROL = /[\u0000-\u001f\u007f]/;

export interface SearchableFields {
  id: string;
  merchant_reference: number | null;
  first_name: string;
  last_name: string;
}

/** The value of the `search_text` column. "first last" covers both names and the full name. */
export function payoutSearchText(fields: SearchableFields): string {
  const parts = [fields.id];
  if (fields.merchant_reference !== null) parts.push(String(fields.merchant_reference));
  parts.push(`${fields.first_name} ${fields.last_name}`);
  return parts.join(FIELD_SEPARATOR).toLowerCase();
}

/** A LIKE pattern that matches `text` literally anywhere in the value. */
export function containsPattern(text: string): string {
  const escaped = text.replace(/[!%_]/g, (c) => LIKE_ESCAPE + c);
  return `%${escaped}%`;
}

export interface PayoutSearch {
  /** The search lowercased, for the search index (src/read-models/payout-search-index.ts). */
  text: string;
  /** LIKE pattern for `search_text` (already lowercased and escaped). */
  textPattern: string;
  /** Set when the search is exactly four digits. */
  last4: string | null;
  /** Set when exactly one currency is filtered and the search reads as an amount in it. */
  amountMinor: number | null;
}

/** 1 to 512 characters, none of them a control character. */
export function isValidSearch(search: string): boolean {
  return search.length >= 1 && search.length <= MAX_SEARCH_LENGTH && !CONTROL.test(search);
}

/**
 * Interprets a search value. `currencies` are the (normalized) `currency` filters of the request:
 * an amount is only read with exactly one, using that currency's ISO 4217 exponent.
 */
export function parsePayoutSearch(search: string, currencies: readonly string[]): PayoutSearch {
  const last4 = /^\d{4}$/.test(search) ? search : null;
  let amountMinor: number | null = null;
  if (currencies.length === 1) {
    const exponent = currencyExponent(currencies[0]!);
    if (exponent !== null) amountMinor = parseMajorAmount(search, exponent);
  }
  const text = search.toLowerCase();
  return { text, textPattern: containsPattern(text), last4, amountMinor };
}
