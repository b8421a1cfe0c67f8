// Webhook signatures (Standard Webhooks): verify what arrives at your endpoint, and sign test
// events the same way (the CLI's `listen` signs what it forwards with this).
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { WebhookSignatureError } from './error';
import type { WebhookEvent } from './types';

/** Request headers as Node's `http` (`req.headers`), the fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function headerValues(headers: WebhookHeaders): Record<string, string> {
  const found: Record<string, string> = {};
  const get = typeof (headers as Headers).get === 'function'
    ? (name: string) => (headers as Headers).get(name) ?? undefined
    : (name: string) => {
      const record = headers as Record<string, string | string[] | undefined>;
      const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
      const value = key === undefined ? undefined : record[key];
      return Array.isArray(value) ? value.join(' ') : value;
    };
  for (const name of SIGNATURE_HEADERS) {
    const value = get(name);
    if (value === undefined) throw new WebhookSignatureError(`Missing the ${name} header: this request was not signed by the payments service.`);
    found[name] = value;
  }
  return found;
}

export class Webhooks {
  /**
   * The event, once one of the `webhook-signature` signatures matches `secret` (the endpoint's
   * `whsec_...`) over the exact raw body, and `webhook-timestamp` is within 5 minutes of this
   * machine's clock. Throws `WebhookSignatureError` otherwise. Pass the body as received, before any
   * JSON parsing: re-serialized JSON does not verify.
   */
  verify(rawBody: string | Buffer | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
    const payload = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody);
    try {
      return new Webhook(secret).verify(payload, headerValues(headers)) as WebhookEvent;
    } catch (error) {
      if (error instanceof WebhookSignatureError) throw error;
      const reason = error instanceof WebhookVerificationError ? error.message : 'the body is not JSON';
      throw new WebhookSignatureError(`Webhook not verified: ${reason}.`, { cause: error });
    }
  }

  /** The headers the service would send with `payload` (for tests of your endpoint, and the CLI's `listen`). */
  sign(params: { id: string; payload: string; secret: string; timestamp?: Date }): Record<(typeof SIGNATURE_HEADERS)[number], string> {
    const timestamp = params.timestamp ?? new Date();
    return {
      'webhook-id': params.id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(params.secret).sign(params.id, timestamp, params.payload),
    };
  }
}
