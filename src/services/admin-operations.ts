// Operator operations on merchants and keys (docs/operations.md, "Merchants and keys"). The CLI in
// cli.ts is a thin shell on these.
import type { DataSource } from 'typeorm';
import { ApiKey, Event, Merchant, WebhookDelivery, type MerchantRow } from '../db/entities';
import { findEventWithAttempts, latestEventsOfMerchant } from '../read-models/events';
import { generateApiKey, hashApiKey, keyHint, type KeyMode } from '../domain/api-keys';
import { forbiddenControlIn } from '../domain/text';
import { newId } from '../domain/ids';
import { normalizeCurrency, isIsoCurrency } from '../domain/money';
import { DEFAULT_VERSION, isKnownVersion } from '../representations/versions';
import type { SecretBox } from '../vault/crypto';
import { urlRefusal, type DestinationPolicy } from '../webhooks/destination';
import { WebhookSecrets } from '../webhooks/secrets';
import { WebhookEndpointService } from './webhook-endpoints';

export const DEFAULT_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'SEK', 'KWD'];

export class AdminError extends Error {}

const now = () => Math.floor(Date.now() / 1000);

export function parseCurrencies(list: string): string {
  const codes = list.split(',').map((c) => normalizeCurrency(c));
  if (!codes.length || codes.some((c) => !c || !isIsoCurrency(c))) throw new AdminError(`--currencies must be a comma-separated list of ISO 4217 codes, got "${list}"`);
  return [...new Set(codes as string[])].join(',');
}

function checkVersion(version: string): string {
  if (!isKnownVersion(version)) throw new AdminError(`unknown version "${version}" (known: 2024-06-01, 2025-09-01)`);
  return version;
}

/**
 * The merchant's URL receives test and live events, so it is checked as test mode allows; a live
 * event to an address only test mode may use is refused when it is delivered.
 */
function checkUrl(url: string, destinations: DestinationPolicy): string {
  const refusal = urlRefusal(url, false, destinations);
  if (refusal) throw new AdminError(`--webhook-url "${url}" is refused: ${refusal}`);
  return url;
}

export interface CreateMerchantInput {
  name: string;
  currencies?: string;
  defaultVersion?: string;
  webhookUrl?: string;
}

export class AdminOperations {
  private readonly endpoints: WebhookEndpointService;

  constructor(private readonly dataSource: DataSource, private readonly box: SecretBox, private readonly destinations: DestinationPolicy) {
    this.endpoints = new WebhookEndpointService(dataSource, box, destinations);
  }

  async createMerchant(input: CreateMerchantInput) {
    if (!input.name.trim()) throw new AdminError('--name is required');
    // The name is shown to shoppers on the hosted page: no NUL or bidi override (domain/text.ts).
    const control = forbiddenControlIn(input.name);
    if (control) throw new AdminError(`--name holds the control character ${control}, which is refused`);
    const id = newId('merchant');
    const ts = now();
    let webhookSecret = '';
    const defaultVersion = checkVersion(input.defaultVersion ?? DEFAULT_VERSION);
    const webhookUrl = input.webhookUrl ? checkUrl(input.webhookUrl, this.destinations) : null;
    await this.dataSource.transaction(async (manager) => {
      await manager.getRepository(Merchant).insert({
        id,
        name: input.name,
        default_version: defaultVersion,
        currencies: input.currencies ? parseCurrencies(input.currencies) : DEFAULT_CURRENCIES.join(','),
        payments_enabled: true,
        payouts_enabled: true,
        provisioned: true,
        webhook_url: webhookUrl,
        created_at: ts,
        updated_at: ts,
      });
      webhookSecret = await new WebhookSecrets(manager, this.box).add({ merchantId: id, endpointId: null });
    });
    // The URL is the merchant's operator-managed webhook endpoint in each mode, signed with that secret.
    if (webhookUrl) await this.endpoints.setOperatorUrl(id, webhookUrl, defaultVersion);
    const testKey = await this.createKey({ merchantId: id, mode: 'test' });
    const liveKey = await this.createKey({ merchantId: id, mode: 'live' });
    return { merchant_id: id, test_key: testKey.key, live_key: liveKey.key, webhook_secret: webhookSecret };
  }

  async updateMerchant(id: string, changes: { payments?: boolean; payouts?: boolean; provisioned?: boolean; currencies?: string; defaultVersion?: string; webhookUrl?: string }) {
    const repo = this.dataSource.getRepository(Merchant);
    const merchant = await repo.findOneBy({ id });
    if (!merchant) throw new AdminError(`no merchant ${id}`);
    const patch: Partial<MerchantRow> = { updated_at: now() };
    if (changes.payments !== undefined) patch.payments_enabled = changes.payments;
    if (changes.payouts !== undefined) patch.payouts_enabled = changes.payouts;
    if (changes.provisioned !== undefined) patch.provisioned = changes.provisioned;
    if (changes.currencies !== undefined) patch.currencies = parseCurrencies(changes.currencies);
    if (changes.defaultVersion !== undefined) patch.default_version = checkVersion(changes.defaultVersion);
    if (changes.webhookUrl !== undefined) patch.webhook_url = changes.webhookUrl === '' ? null : checkUrl(changes.webhookUrl, this.destinations);
    await repo.update({ id }, patch);
    if (patch.webhook_url !== undefined) await this.endpoints.setOperatorUrl(id, patch.webhook_url, patch.default_version ?? merchant.default_version);
    return this.showMerchant(id);
  }

  async showMerchant(id: string) {
    const merchant = await this.dataSource.getRepository(Merchant).findOneBy({ id });
    if (!merchant) throw new AdminError(`no merchant ${id}`);
    const keys = await this.dataSource.getRepository(ApiKey).find({ where: { merchant_id: id }, order: { created_at: 'ASC' } });
    return {
      merchant_id: merchant.id,
      name: merchant.name,
      default_version: merchant.default_version,
      currencies: merchant.currencies.split(','),
      payments: merchant.payments_enabled,
      payouts: merchant.payouts_enabled,
      provisioned: merchant.provisioned,
      webhook_url: merchant.webhook_url,
      keys: keys.map((k) => ({ hint: k.key_hint, mode: k.mode, refunds: k.can_refund, expires_at: k.expires_at, revoked_at: k.revoked_at })),
    };
  }

  async createKey(input: { merchantId: string; mode: KeyMode; refunds?: boolean; expiresAt?: number | null }) {
    const merchant = await this.dataSource.getRepository(Merchant).findOneBy({ id: input.merchantId });
    if (!merchant) throw new AdminError(`no merchant ${input.merchantId}`);
    const key = generateApiKey(input.mode);
    await this.dataSource.getRepository(ApiKey).insert({
      id: newId('apiKey'),
      merchant_id: input.merchantId,
      mode: input.mode,
      key_hash: hashApiKey(key),
      key_hint: keyHint(key),
      can_refund: input.refunds ?? true,
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      created_at: now(),
    });
    return { key };
  }

  /**
   * A new signing secret for the merchant's `--webhook-url` endpoints and its callbacks; the current
   * ones keep signing for `graceSeconds` (both signatures sent). Endpoints the merchant created
   * through the API rotate their own secrets.
   */
  async rotateWebhookSecret(merchantId: string, graceSeconds: number) {
    await this.showMerchant(merchantId);
    const secret = await this.endpoints.rotateOperatorSecret(merchantId, graceSeconds);
    return { webhook_secret: secret, previous_secrets_expire_at: Math.floor(Date.now() / 1000) + graceSeconds };
  }

  async listEvents(merchantId: string, limit = 20) {
    const events = await latestEventsOfMerchant(this.dataSource, merchantId, limit);
    return {
      events: events.map(({ event: e, attempts: mine }) => {
        const last = mine[mine.length - 1];
        return {
          id: e.id, type: e.type, object_id: e.object_id, livemode: e.livemode, created_at: e.created_at,
          attempts: mine.length, delivered: mine.some((a) => a.status_code !== null && a.status_code >= 200 && a.status_code < 300),
          last_status_code: last?.status_code ?? null, last_error: last?.error ?? null,
        };
      }),
    };
  }

  async eventAttempts(eventId: string) {
    const found = await findEventWithAttempts(this.dataSource, null, eventId);
    if (!found) throw new AdminError(`no event ${eventId}`);
    const { event, attempts } = found;
    return {
      event: { id: event.id, type: event.type, object_id: event.object_id, merchant_id: event.merchant_id, payload: JSON.parse(event.payload) as unknown },
      deliveries: (await this.dataSource.getRepository(WebhookDelivery).find({ where: { event_id: eventId }, order: { seq: 'ASC' } })).map((d) => ({
        delivery_id: d.id, webhook_endpoint_id: d.endpoint_id, url: d.url, status: d.status, attempts: d.attempts,
        next_attempt_at: d.next_attempt_at === null ? null : new Date(d.next_attempt_at).toISOString(),
      })),
      attempts: attempts.map((a) => ({
        delivery_id: a.delivery_id, attempt: a.attempt, endpoint: a.endpoint, status_code: a.status_code,
        error: a.error, latency_ms: a.latency_ms, attempted_at: new Date(a.attempted_at_ms).toISOString(),
      })),
    };
  }

  /**
   * Checks the event exists and names a resend of each of its deliveries (a workflow id of its
   * own, its attempts counted on the delivery); the caller starts the workflows.
   */
  async resendTargets(eventId: string) {
    const event = await this.dataSource.getRepository(Event).findOneBy({ id: eventId });
    if (!event) throw new AdminError(`no event ${eventId}`);
    const deliveries = await this.dataSource.getRepository(WebhookDelivery).find({ where: { event_id: eventId }, order: { seq: 'ASC' } });
    if (!deliveries.length) throw new AdminError(`event ${eventId} has no deliveries (no webhook endpoint took it)`);
    const at = Date.now();
    return deliveries.map((d) => ({ eventId, deliveryId: d.id, workflowId: `${d.id}_resend_${at}`, url: d.url }));
  }

  async revokeKey(key: string) {
    const result = await this.dataSource.getRepository(ApiKey).update({ key_hash: hashApiKey(key) }, { revoked_at: now() });
    if (!result.affected) throw new AdminError('no such key');
    return { revoked: keyHint(key) };
  }
}
