// Currency codes, ISO 4217 exponents and minor-unit amounts. Integer arithmetic only: amounts
// never pass through floating-point conversion. Pure, so workflow code can import it.
import { code as isoCurrency } from 'currency-codes';

// Largest accepted amount in minor units (docs/api-reference.md, "Money and bounds").
export const MAX_AMOUNT = 99_999_999_999;

// Checked before uppercasing: toUpperCase maps some non-ASCII letters to ASCII ('ı' -> 'I').
const THREE_ASCII_LETTERS = /^[A-Za-z]{3}$/;

export function normalizeCurrency(input: string): string | null {
  const trimmed = input.trim();
  return THREE_ASCII_LETTERS.test(trimmed) ? trimmed.toUpperCase() : null;
}

// Minor-unit digits from the ISO 4217 list; case and surrounding whitespace are ignored.
export function currencyExponent(code: string): number | null {
  const normalized = normalizeCurrency(code);
  if (normalized === null) return null;
  const record = isoCurrency(normalized);
  return record !== undefined && Number.isInteger(record.digits) ? record.digits : null;
}

export function isIsoCurrency(code: string): boolean {
  return currencyExponent(code) !== null;
}

// Exact decimal string of a minor-unit amount, e.g. (4999, 2) -> "49.99".
export function minorToDecimalString(amount: number, exponent: number): string {
  if (!Number.isSafeInteger(amount)) throw new RangeError('amount must be a safe integer');
  const digits = String(Math.abs(amount)).padStart(exponent + 1, '0');
  const sign = amount < 0 ? '-' : '';
  if (exponent === 0) return sign + digits;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

export function formatMinor(amount: number, currency: string, locale = 'en-US'): string {
  const code = normalizeCurrency(currency);
  const exponent = code === null ? null : currencyExponent(code);
  if (code === null || exponent === null) {
    throw new RangeError(`unknown currency: ${currency}`);
  }
  const formatter = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: code,
    minimumFractionDigits: exponent,
    maximumFractionDigits: exponent,
  });
  // Intl formats a decimal string exactly (no conversion through a double). The cast is only
  // for older lib typings that declare format(number | bigint).
  return formatter.format(minorToDecimalString(amount, exponent) as unknown as number);
}

// Parses a search text as an exact amount in major units and returns minor units, or null.
// Accepts digits with one optional '.' or ',' decimal separator followed by at most `exponent`
// digits; no sign, no thousands separators, no whitespace.
export function parseMajorAmount(text: string, exponent: number): number | null {
  if (!Number.isInteger(exponent) || exponent < 0 || exponent > 9) return null;
  const match = /^(\d+)(?:[.,](\d*))?$/.exec(text);
  if (match === null) return null;
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = match[2];
  if (fraction !== undefined && (exponent === 0 || fraction.length > exponent)) return null;
  // Beyond MAX_AMOUNT nothing can match; the bound also keeps the arithmetic within safe ints.
  if (whole.length + exponent > 15) return null;
  const minor = Number(whole) * 10 ** exponent + Number((fraction ?? '').padEnd(exponent, '0') || '0');
  return minor <= MAX_AMOUNT ? minor : null;
}
