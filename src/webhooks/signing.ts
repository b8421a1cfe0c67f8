// Standard Webhooks signatures (docs/webhooks.md): `webhook-signature` holds `v1,<base64 HMAC-SHA256 of
// id.timestamp.body>` for every secret that is still valid, so a rotation keeps old verifiers working.
import { Webhook } from 'standardwebhooks';

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signWebhook(messageId: string, timestamp: Date, body: string, secrets: readonly string[]): SignedHeaders {
  if (!secrets.length) throw new Error('no webhook secret to sign with');
  const signatures = secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
