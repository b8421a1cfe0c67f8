// The payload codec (src/temporal/codec.ts) and its key ring settings (src/config.ts): AES-256-GCM
// with the key id in the metadata, rotation, tampering, and production refusing development keys.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { parseKeyRing, secretProblems, type CodecKeyRing } from '../../src/config';
import { ENCRYPTED_ENCODING, EncryptionCodec, KEY_ID_METADATA, isEncrypted, keyIdOf } from '../../src/temporal/codec';

const hex = () => randomBytes(32).toString('hex');
const K1 = hex();
const K2 = hex();
const ring = (currentKeyId: string, keys: Record<string, string>): CodecKeyRing => ({ currentKeyId, keys });
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

const PERSONAL = { holder_name: 'Zebulon Quillfeather', email: 'zebulon@example.org', ip: '198.51.100.77' };
const payload = () => defaultPayloadConverter.toPayload(PERSONAL);

describe('EncryptionCodec', () => {
  it('encrypts the whole payload, metadata included, under the current key and decodes it back', async () => {
    const codec = new EncryptionCodec(ring('k1', { k1: K1 }));
    const [encrypted] = await codec.encode([payload()]);
    expect(text(encrypted!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encrypted!.metadata![KEY_ID_METADATA])).toBe('k1');
    expect(Object.keys(encrypted!.metadata!).sort()).toEqual(['encoding', KEY_ID_METADATA].sort());
    const raw = Buffer.from(encrypted!.data!).toString('latin1');
    for (const value of [...Object.values(PERSONAL), 'json/plain']) expect(raw).not.toContain(value);
    expect(isEncrypted(encrypted!)).toBe(true);
    expect(keyIdOf(encrypted!)).toBe('k1');

    const [decoded] = await codec.decode([encrypted!]);
    expect(text(decoded!.metadata!.encoding)).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(PERSONAL);
  });

  it('uses a fresh IV for every payload', async () => {
    const codec = new EncryptionCodec(ring('k1', { k1: K1 }));
    const [a, b] = await codec.encode([payload(), payload()]);
    expect(Buffer.from(a!.data!).equals(Buffer.from(b!.data!))).toBe(false);
  });

  it('after a rotation new payloads use the new key and the old ones still decode', async () => {
    const before = new EncryptionCodec(ring('k1', { k1: K1 }));
    const after = new EncryptionCodec(ring('k2', { k1: K1, k2: K2 }));
    const [old] = await before.encode([payload()]);
    const [fresh] = await after.encode([payload()]);
    expect([keyIdOf(old!), keyIdOf(fresh!)]).toEqual(['k1', 'k2']);
    const decoded = await after.decode([old!, fresh!]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([PERSONAL, PERSONAL]);
    // A ring without the old key names it, and only it.
    const error = await new EncryptionCodec(ring('k2', { k2: K2 })).decode([old!]).then(() => null, (e: Error) => e);
    expect(error?.message).toMatch(/key "k1", which is not in the codec's key ring/);
    expect(error?.message).not.toContain(K1);
  });

  it('refuses a tampered payload, and one relabelled to another key of the ring', async () => {
    const codec = new EncryptionCodec(ring('k1', { k1: K1, k2: K1 }));
    const [encrypted] = await codec.encode([payload()]);
    const flipped = Buffer.from(encrypted!.data!);
    flipped[20] ^= 1;
    await expect(codec.decode([{ ...encrypted!, data: flipped }])).rejects.toThrow();
    // Same key bytes under another id: the key id is authenticated with the ciphertext.
    const relabelled = { ...encrypted!, metadata: { ...encrypted!.metadata!, [KEY_ID_METADATA]: new TextEncoder().encode('k2') } };
    await expect(codec.decode([relabelled])).rejects.toThrow();
    await expect(codec.decode([{ ...encrypted!, data: new Uint8Array(10) }])).rejects.toThrow(/truncated/);
  });

  it('passes plaintext payloads through on decode', async () => {
    const codec = new EncryptionCodec(ring('k1', { k1: K1 }));
    const plain = payload();
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('refuses a ring whose current key is missing or whose key is not 32 bytes', () => {
    expect(() => new EncryptionCodec(ring('k9', { k1: K1 }))).toThrow(/current codec key "k9"/);
    expect(() => new EncryptionCodec(ring('k1', { k1: 'ab'.repeat(16) }))).toThrow(/not 32 bytes/);
  });
});

describe('TEMPORAL_CODEC_KEYS and TEMPORAL_CODEC_KEY_ID', () => {
  it('read as a key ring with its current key', () => {
    expect(parseKeyRing(`k1:${K1}, k2:${K2.toUpperCase()}`, 'k2')).toEqual({ currentKeyId: 'k2', keys: { k1: K1, k2: K2 } });
    expect(parseKeyRing(`only:${K1}`, undefined)).toEqual({ currentKeyId: 'only', keys: { only: K1 } });
  });

  it.each([
    ['a key that is not 64 hex characters', `k1:${K1.slice(2)}`, undefined, /"k1:\.\.\." is not <key id>:<64 hex characters>/],
    ['no key', ' , ', undefined, /holds no key/],
    ['the same id twice', `k1:${K1},k1:${K2}`, 'k1', /names key "k1" twice/],
    ['several keys and no current one', `k1:${K1},k2:${K2}`, undefined, /TEMPORAL_CODEC_KEY_ID must name the current key/],
    ['a current id not in the ring', `k1:${K1}`, 'k2', /"k2" is not one of the keys/],
  ])('refuse %s, without printing a key', (_label, keys, current, message) => {
    let error: Error | null = null;
    try {
      parseKeyRing(keys, current);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain(K1.slice(2, 20));
  });

  it('production refuses development keys, a missing ring and TEMPORAL_CODEC=off', () => {
    const production = { NODE_ENV: 'production' };
    const names = ['TEMPORAL_CODEC_KEYS', 'TEMPORAL_CODEC'] as const;
    expect(secretProblems(names, production)).toEqual(['TEMPORAL_CODEC_KEYS is not set']);
    expect(secretProblems(names, { ...production, TEMPORAL_CODEC_KEYS: `dev:${'de'.repeat(32)}` })).toEqual(['TEMPORAL_CODEC_KEYS holds a development key (one byte repeated): dev']);
    expect(secretProblems(names, { ...production, TEMPORAL_CODEC_KEYS: `old:${'7e'.repeat(32)},new:${K2}`, TEMPORAL_CODEC_KEY_ID: 'new' })).toEqual(['TEMPORAL_CODEC_KEYS holds a development key (one byte repeated): old']);
    expect(secretProblems(names, { ...production, TEMPORAL_CODEC_KEYS: `k1:${K1},k2:${K2}` })[0]).toMatch(/^TEMPORAL_CODEC_KEYS is not a valid key ring \(TEMPORAL_CODEC_KEY_ID must name/);
    expect(secretProblems(names, { ...production, TEMPORAL_CODEC_KEYS: `k1:${K1}`, TEMPORAL_CODEC: 'off' })).toEqual(['TEMPORAL_CODEC is off: payloads would reach Temporal in plaintext']);
    expect(secretProblems(names, { ...production, TEMPORAL_CODEC_KEYS: `k1:${K1},k2:${K2}`, TEMPORAL_CODEC_KEY_ID: 'k2' })).toEqual([]);
    // Outside production the development ring and the switch are allowed (npm start, the bench).
    expect(secretProblems(names, { TEMPORAL_CODEC: 'off' })).toEqual([]);
  });
});
