// Payload encryption: every payload the service hands to Temporal (workflow and activity inputs and
// results, update, signal and query arguments and results, memos, summaries, failure details) goes
// through this codec on every client and worker, so histories hold AES-256-GCM ciphertext. The key
// id travels in the payload's metadata: new payloads use the ring's current key, and any key still
// in the ring decodes, so keys rotate without downtime. Search attributes are not payloads of the
// codec (the server indexes them) and hold no personal data (search-attributes.ts).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { CodecKeyRing } from '../config';

/** `metadata.encoding` of an encrypted payload; its data is IV, ciphertext of the whole original payload, tag. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export class CodecKeyError extends Error {}

function metadataText(payload: Payload, name: string): string | null {
  const value = payload.metadata?.[name];
  return value ? fromUtf8.decode(value) : null;
}

export function isEncrypted(payload: Payload): boolean {
  return metadataText(payload, 'encoding') === ENCRYPTED_ENCODING;
}

/** The id of the key a payload was encrypted with; null for a plaintext payload. */
export function keyIdOf(payload: Payload): string | null {
  return isEncrypted(payload) ? metadataText(payload, KEY_ID_METADATA) : null;
}

/** The key id is authenticated with the ciphertext: a payload relabelled to another key does not decode. */
const additionalData = (keyId: string) => utf8.encode(`${ENCRYPTED_ENCODING};${keyId}`);

export class EncryptionCodec implements PayloadCodec {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentKeyId: string;

  constructor(ring: CodecKeyRing) {
    for (const [id, hex] of Object.entries(ring.keys)) {
      const key = Buffer.from(hex, 'hex');
      if (key.length !== 32) throw new CodecKeyError(`codec key "${id}" is not 32 bytes (64 hex characters)`);
      this.keys.set(id, key);
    }
    if (!this.keys.has(ring.currentKeyId)) throw new CodecKeyError(`the current codec key "${ring.currentKeyId}" is not in the ring`);
    this.currentKeyId = ring.currentKeyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  /** Decrypts what this service encrypted; any other payload (plaintext) passes through as it is. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => (isEncrypted(payload) ? this.decrypt(payload) : payload));
  }

  encrypt(payload: Payload): Payload {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(additionalData(this.currentKeyId));
    const plaintext = temporal.api.common.v1.Payload.encode(payload).finish();
    return {
      metadata: { encoding: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(this.currentKeyId) },
      data: Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]),
    };
  }

  decrypt(payload: Payload): Payload {
    const keyId = keyIdOf(payload) ?? '';
    const key = this.keys.get(keyId);
    // Names the id only: the operator adds that key back to TEMPORAL_CODEC_KEYS.
    if (!key) throw new CodecKeyError(`payload encrypted with key "${keyId}", which is not in the codec's key ring`);
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) throw new CodecKeyError('encrypted payload is truncated');
    const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES));
    decipher.setAAD(additionalData(keyId));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    const plaintext = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    return temporal.api.common.v1.Payload.decode(plaintext);
  }
}

/**
 * Failure messages and stack traces move into the failure's encoded attributes, a payload the codec
 * encrypts (the default converter leaves them in plaintext). Workers give the same module to the
 * workflow bundle, which encodes the failures workflows raise.
 */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/** The data converter of every client and worker of the service (and of replay). */
export function temporalDataConverter(ring: CodecKeyRing | null): DataConverter {
  return { failureConverterPath: FAILURE_CONVERTER_PATH, ...(ring ? { payloadCodecs: [new EncryptionCodec(ring)] } : {}) };
}
