// The client: one per API key. Resources hang off it as in stripe-node (`client.payments.create`).
import { HttpClient } from './http';
import { Events } from './resources/events';
import { Payments } from './resources/payments';
import { Payouts } from './resources/payouts';
import { Refunds } from './resources/refunds';
import { WebhookEndpoints } from './resources/webhook-endpoints';
import { API_VERSION } from './types';
import { Webhooks } from './webhooks';

export interface PaymentsClientOptions {
  /** A secret API key: `svc_test_sk_...` or `svc_live_sk_...`. Keep it on your server. */
  apiKey: string;
  /** Where the service is, such as `https://payments.example.com` (no `/v1`). */
  baseUrl: string;
  /** Retries of a request that may succeed when repeated (network error, 409 in use, 429, 5xx). Default 2. */
  maxRetries?: number;
  /**
   * The `Service-Version` sent with every request. Default, and the version this SDK's types
   * describe: `2025-09-01`. Pinning it keeps your integration on one version whatever your
   * account's default becomes.
   */
  version?: string;
  /** Time-out of one attempt, in milliseconds. Default 80 000. */
  timeoutMs?: number;
  /** Another `fetch` (a proxy agent, a test double). Default: Node's global `fetch`. */
  fetch?: typeof fetch;
}

export class PaymentsClient {
  readonly payments: Payments;
  readonly refunds: Refunds;
  readonly payouts: Payouts;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly webhooks = new Webhooks();

  constructor(options: PaymentsClientOptions) {
    if (!options.apiKey) throw new Error('PaymentsClient: apiKey is required (svc_test_sk_... or svc_live_sk_...).');
    if (!options.baseUrl) throw new Error('PaymentsClient: baseUrl is required (such as https://payments.example.com).');
    const maxRetries = options.maxRetries ?? 2;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new Error('PaymentsClient: maxRetries must be a whole number, 0 or more.');
    const http = new HttpClient({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      version: options.version ?? API_VERSION,
      maxRetries,
      timeoutMs: options.timeoutMs ?? 80_000,
      fetch: options.fetch ?? globalThis.fetch,
    });
    this.payments = new Payments(http);
    this.refunds = new Refunds(http);
    this.payouts = new Payouts(http);
    this.events = new Events(http);
    this.webhookEndpoints = new WebhookEndpoints(http);
  }
}
