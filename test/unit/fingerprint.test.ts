import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { canonicalJson, fingerprint } from '../../src/domain/fingerprint';

// Rebuilds an object with its keys inserted in a different order, recursively.
function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => shuffleKeys(v, seed + i));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const rotated = entries.map((_, i) => entries[(i + seed) % entries.length]!);
  rotated.reverse();
  const out: Record<string, unknown> = {};
  for (const [k, v] of rotated) out[k] = shuffleKeys(v, seed + 1);
  return out;
}

// Adds `null` and `undefined` members at every object level, which must not change anything.
function addEmptyMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(addEmptyMembers);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { zz_null: null, aa_undefined: undefined };
  for (const [k, v] of Object.entries(value)) out[k] = addEmptyMembers(v);
  return out;
}

// JSON values without null object members and without keys the helpers above add.
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer().map((n) => n + 0), // no -0: JSON cannot keep it
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string().filter((k) => k !== 'zz_null' && k !== 'aa_undefined' && k !== '__proto__'), tie('value'), {
      maxKeys: 5,
    }),
  ),
})).value;

const identity = fc.dictionary(fc.string().filter((k) => k !== '__proto__'), jsonValue, { maxKeys: 6 });

describe('canonicalJson', () => {
  it('sorts keys recursively and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: 'x', c: [2, 1] } })).toBe('{"a":{"c":[2,1],"d":"x"},"b":1}');
  });

  it('drops null and undefined object members at every depth', () => {
    expect(canonicalJson({ a: null, b: undefined, c: { d: null, e: 1 } })).toBe('{"c":{"e":1}}');
    expect(canonicalJson({ billing_details: { address: null, email: 'a@b.c' } })).toBe(
      canonicalJson({ billing_details: { email: 'a@b.c' } }),
    );
  });

  it('keeps array order and writes missing array members as null', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson([null, undefined, 1])).toBe('[null,null,1]');
  });

  it('keeps values that only look empty', () => {
    expect(canonicalJson({ a: 0, b: '', c: false, d: [], e: {} })).toBe('{"a":0,"b":"","c":false,"d":[],"e":{}}');
  });

  it('distinguishes types and escapes strings', () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ 'a"b': 'x\ny' })).toBe('{"a\\"b":"x\\ny"}');
    expect(canonicalJson('Díaz')).toBe('"Díaz"');
  });

  it('sorts by UTF-16 code units, independent of locale', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, é: 4, '10': 5, '9': 6 })).toBe(
      '{"10":5,"9":6,"B":2,"a":3,"b":1,"é":4}',
    );
  });

  it('uses toJSON like JSON.stringify', () => {
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('rejects values that have no JSON form', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('is valid JSON that parses back to the same value', () => {
    fc.assert(
      fc.property(identity, (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(value);
      }),
    );
  });
});

describe('fingerprint', () => {
  it('is the sha256 hex of operation, newline and canonical JSON', () => {
    const expected = createHash('sha256').update('refund.create\n{"amount":500,"payment_id":"pay_1"}').digest('hex');
    expect(fingerprint('refund.create', { payment_id: 'pay_1', amount: 500 })).toBe(expected);
    expect(fingerprint('x', {})).toMatch(/^[0-9a-f]{64}$/);
  });

  it('separates operations and values', () => {
    const id = { amount: 500 };
    expect(fingerprint('payment.create', id)).not.toBe(fingerprint('payout.create', id));
    expect(fingerprint('a', { amount: 500 })).not.toBe(fingerprint('a', { amount: 501 }));
    expect(fingerprint('a', { merchant_reference: null })).not.toBe(fingerprint('a', { merchant_reference: 0 }));
  });

  it('treats omitted and null optional fields as the same value', () => {
    expect(fingerprint('refund.create', { payment_id: 'pay_1', amount: 5, merchant_reference: null })).toBe(
      fingerprint('refund.create', { payment_id: 'pay_1', amount: 5 }),
    );
  });

  it('does not depend on key order (property)', () => {
    fc.assert(
      fc.property(fc.string(), identity, fc.nat(), (op, id, seed) => {
        expect(fingerprint(op, shuffleKeys(id, seed) as Record<string, unknown>)).toBe(fingerprint(op, id));
      }),
    );
  });

  it('does not depend on null or undefined members (property)', () => {
    fc.assert(
      fc.property(fc.string(), identity, (op, id) => {
        expect(fingerprint(op, addEmptyMembers(id) as Record<string, unknown>)).toBe(fingerprint(op, id));
      }),
    );
  });

  it('changes when a member is added (property)', () => {
    fc.assert(
      fc.property(fc.string(), identity, fc.string({ minLength: 1 }), jsonValue, (op, id, key, value) => {
        fc.pre(key !== '__proto__' && !(key in id));
        expect(fingerprint(op, { ...id, [key]: value })).not.toBe(fingerprint(op, id));
      }),
    );
  });
});
