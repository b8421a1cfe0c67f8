// Idempotency fingerprints (docs/api-reference.md, "Idempotency"): a hash of the parsed identity
// fields, so JSON property order and whitespace do not matter and omitted equals null.
import { createHash } from 'node:crypto';

function canonical(value: unknown, seen: Set<object>): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'bigint') throw new TypeError('canonicalJson: bigint is not JSON');
  if (typeof value !== 'object') {
    // Strings, finite numbers and booleans as JSON.stringify writes them; NaN and Infinity
    // become null; undefined, functions and symbols have no JSON form.
    return JSON.stringify(value);
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return canonical(withJson.toJSON(), seen);
  if (seen.has(value)) throw new TypeError('canonicalJson: circular structure');
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      // Arrays keep order; members without a JSON form become null, as in JSON.stringify.
      return `[${value.map((item) => canonical(item, seen) ?? 'null').join(',')}]`;
    }
    const members: string[] = [];
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      // Omitted, undefined and null optional fields are one value.
      if (member === null || member === undefined) continue;
      const text = canonical(member, seen);
      if (text === undefined) continue;
      members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    seen.delete(value);
  }
}

// JSON with object keys sorted recursively (UTF-16 code unit order) and null/undefined object
// members dropped.
export function canonicalJson(value: unknown): string {
  return canonical(value, new Set()) ?? 'null';
}

export function fingerprint(operation: string, identity: Record<string, unknown>): string {
  return createHash('sha256').update(`${operation}\n${canonicalJson(identity)}`, 'utf8').digest('hex');
}
