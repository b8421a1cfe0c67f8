// The one id generator: a prefix and 24 base62 characters from a CSPRNG (or, for ids that must
// come out the same on every try, from a digest of what they name).
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // Rejection sampling keeps the distribution uniform (248 = 4 * 62).
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export const ID_PREFIXES = {
  payment: 'pay_',
  refund: 'ref_',
  payout: 'po_',
  merchant: 'mer_',
  event: 'evt_',
  request: 'req_',
  apiKey: 'key_',
  cardToken: 'tok_',
  attempt: 'att_',
  hostedToken: 'hpp_',
  webhookEndpoint: 'we_',
  webhookDelivery: 'wdl_',
  webhookSecret: 'whs_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind, length = 24): string {
  return ID_PREFIXES[kind] + randomBase62(length);
}

/**
 * The id of the object `seed` names, the same on every call: a delivery is (event, endpoint), so
 * two workers that plan it write one row and start one workflow.
 */
export function derivedId(kind: IdKind, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; out.length < 24; i += 1) out += ALPHABET[digest[i % digest.length]! % 62];
  return ID_PREFIXES[kind] + out;
}

const ID_PATTERNS: Partial<Record<IdKind, RegExp>> = {
  payment: /^pay_[A-Za-z0-9]{24}$/,
  refund: /^ref_[A-Za-z0-9]{24}$/,
  payout: /^po_[A-Za-z0-9]{24}$/,
  merchant: /^mer_[A-Za-z0-9]{24}$/,
  webhookEndpoint: /^we_[A-Za-z0-9]{24}$/,
  event: /^evt_[A-Za-z0-9]{24}$/,
};

export function isId(kind: 'payment' | 'refund' | 'payout' | 'merchant' | 'webhookEndpoint' | 'event', value: string): boolean {
  return ID_PATTERNS[kind]!.test(value);
}
