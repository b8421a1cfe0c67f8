// The hosted payment page's rules: when its form takes a card, and the card form's fields and their
// checks. Pure: the shopper's input in, either a card ready for the vault or messages for the page.
// Messages are written for shoppers and never echo the card number or CVC.
import { createHash } from 'node:crypto';
import { cardExpired, isTestCard, luhnValid } from './cards';
import type { PaymentView } from './payment';
import { characterCount, forbiddenControlIn, sliceCharacters } from './text';

/**
 * What the database keeps of a hosted page token: its SHA-256, as of an API key. The page looks its
 * Payment up by the hash of the token in its URL; the token itself is kept only sealed, to show the
 * page's URL to the merchant again (read-models/payments.ts).
 */
export function hostedTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Stands for the token in the page URLs a Payment row keeps. */
export const HOSTED_TOKEN_MARK = '{hosted_token}';

/** The form accepts a card only while the Payment waits for exactly this step. */
export function hostedPageOpen(payment: Pick<PaymentView, 'status' | 'next_action'>): boolean {
  return payment.status === 'REQUIRES_ACTION' && payment.next_action?.reason === 'hosted_payment_page';
}

// A CSP host-source is a name of letters, digits and hyphens between dots, or an IPv4 address; an
// optional port. Anything else in a URL's host (`;`, `,`, quotes, spaces, brackets) would end the
// source and start another directive, and WHATWG URL parsing lets most of it through.
const CSP_SAFE_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

/**
 * The origin of `url` as a CSP source expression (`https://shop.example:8443`), or null when the URL
 * is not absolute http(s) or its host cannot be written in a CSP header as it is. The hosted page
 * puts the merchant's return origin in its `form-action` directive, so a `return_url` (Shape B:
 * `redirect_url`) must pass this (docs/hosted-page.md, "Security headers").
 */
export function cspSourceOf(url: string): string | null {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return null;
  if (!CSP_SAFE_HOST.test(target.hostname)) return null;
  return target.origin;
}

export const CARD_FIELDS = ['card_number', 'exp', 'cvc', 'cardholder_name'] as const;
export type CardField = (typeof CARD_FIELDS)[number];

export type FieldErrors = Partial<Record<CardField, string>>;

/** What a re-rendered form may show again. Card number and CVC are never sent back to the browser. */
export interface SafeFormValues {
  exp: string;
  cardholder_name: string;
}

export interface ValidCard {
  number: string;
  cvc: string;
  expMonth: number;
  expYear: number;
  holderName: string;
}

export type CardFormResult =
  | { ok: true; card: ValidCard }
  | { ok: false; errors: FieldErrors; values: SafeFormValues };

export const MAX_NAME_LENGTH = 255;
const MAX_FIELD_LENGTH = 300;

/**
 * `application/x-www-form-urlencoded` text, or null when a name or value is not percent-encoded UTF-8.
 * URLSearchParams would read a malformed escape as U+FFFD, so the name kept would not be the name sent.
 */
export function parseUrlEncodedForm(text: string): URLSearchParams | null {
  const pairs: [string, string][] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const [name, value] = equals === -1 ? [part, ''] : [part.slice(0, equals), part.slice(equals + 1)];
    try {
      pairs.push([decodeURIComponent(name.replace(/\+/g, ' ')), decodeURIComponent(value.replace(/\+/g, ' '))]);
    } catch {
      return null;
    }
  }
  return new URLSearchParams(pairs);
}

/** Bounded (whole characters: a cut between the halves of a pair would leave half an emoji). */
function field(form: URLSearchParams, name: CardField): string {
  return sliceCharacters(form.get(name) ?? '', MAX_FIELD_LENGTH).trim();
}

function checkNumber(raw: string, livemode: boolean): { number?: string; error?: string } {
  if (raw === '') return { error: 'Enter your card number.' };
  // Shoppers type or paste numbers in groups: spaces and hyphens are not part of the number.
  const number = raw.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) return { error: 'Enter a card number of 12 to 19 digits.' };
  if (!luhnValid(number)) return { error: 'This card number is not valid. Check it and try again.' };
  if (livemode && isTestCard(number)) return { error: 'This card number cannot be used for a real payment.' };
  return { number };
}

/** `MM/YY`, `MM / YYYY` or `MMYY`; two-digit years are 20YY. */
export function parseExpiry(raw: string): { month: number; year: number } | null {
  const match = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(raw) ?? /^(\d{2})(\d{2})$/.exec(raw);
  if (!match) return null;
  const year = Number(match[2]);
  return { month: Number(match[1]), year: match[2]!.length === 2 ? 2000 + year : year };
}

function checkExpiry(raw: string, now: Date): { month?: number; year?: number; error?: string } {
  if (raw === '') return { error: 'Enter the expiry date.' };
  const expiry = parseExpiry(raw);
  if (!expiry) return { error: 'Enter the expiry date as MM/YY.' };
  if (expiry.month < 1 || expiry.month > 12) return { error: 'The expiry month must be between 01 and 12.' };
  // A date in the past is a typing mistake far more often than an expired card: ask again rather
  // than declining the payment.
  if (cardExpired(expiry.month, expiry.year, now)) return { error: 'This expiry date is in the past. Check the date on your card.' };
  return expiry;
}

function checkCvc(raw: string): string | undefined {
  if (raw === '') return 'Enter the security code.';
  if (!/^\d{3,4}$/.test(raw)) return 'The security code is the 3 or 4 digits on your card.';
  return undefined;
}

function checkName(raw: string): string | undefined {
  if (raw === '') return 'Enter the name on the card.';
  if (characterCount(raw) > MAX_NAME_LENGTH) return `The name can be at most ${MAX_NAME_LENGTH} characters.`;
  // One line: no tab or line break either, on top of what every text refuses (text.ts).
  if (/[\u0000-\u001f]/.test(raw) || forbiddenControlIn(raw)) return 'The name contains characters that are not allowed.';
  return undefined;
}

export function parseCardForm(form: URLSearchParams, options: { livemode: boolean; now: Date }): CardFormResult {
  const number = checkNumber(field(form, 'card_number'), options.livemode);
  const exp = field(form, 'exp');
  const expiry = checkExpiry(exp, options.now);
  const cvc = field(form, 'cvc');
  const name = field(form, 'cardholder_name');
  const errors: FieldErrors = {};
  if (number.error) errors.card_number = number.error;
  if (expiry.error) errors.exp = expiry.error;
  const cvcError = checkCvc(cvc);
  if (cvcError) errors.cvc = cvcError;
  const nameError = checkName(name);
  if (nameError) errors.cardholder_name = nameError;
  if (Object.keys(errors).length > 0) {
    return { ok: false, errors, values: { exp, cardholder_name: sliceCharacters(name, MAX_NAME_LENGTH) } };
  }
  return { ok: true, card: { number: number.number!, cvc, expMonth: expiry.month!, expYear: expiry.year!, holderName: name } };
}
