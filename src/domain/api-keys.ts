// API key format (docs/api-reference.md, "Merchants, keys and modes"): `svc_test_sk_` or
// `svc_live_sk_` + 32 base62. Stored only as a hash.
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from './ids';

export type KeyMode = 'test' | 'live';
const KEY_PATTERN = /^svc_(test|live)_sk_[A-Za-z0-9]{32}$/;

export function generateApiKey(mode: KeyMode): string {
  return `svc_${mode}_sk_${randomBase62(32)}`;
}

export function parseApiKey(token: string): { mode: KeyMode } | null {
  const match = KEY_PATTERN.exec(token);
  return match ? { mode: match[1] as KeyMode } : null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time equality of two hex digests. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What operators see of a key after creation. */
export function keyHint(key: string): string {
  return `${key.slice(0, 12)}...${key.slice(-4)}`;
}
