// Webhook endpoints (docs/webhooks.md, "Endpoints"): the merchant's API and the admin
// command's `--webhook-url` work on the same rows. An endpoint belongs to one merchant and mode;
// every read and write stays inside the caller's. Secrets are sealed at rest and shown once: in the
// answer of a create and of a rotation.
import { lookup } from 'node:dns/promises';
import { IsNull, type DataSource } from 'typeorm';
import { WebhookEndpoint, type WebhookEndpointRow, type WebhookEndpointStatus } from '../db/entities';
import { isDuplicateKeyError } from '../db/errors';
import { ApiError } from '../domain/errors';
import { newId } from '../domain/ids';
import { parseIpLiteral } from '../domain/ip';
import { MAX_WEBHOOK_ENDPOINTS, normalizeEnabledEvents, type WebhookEndpointView } from '../domain/webhook-endpoints';
import { cutPage, pageRows, seqPageOf, type CursorNotFound } from '../read-models/seq-pages';
import type { SecretBox } from '../vault/crypto';
import { addressRefusal, effectivePort, urlRefusal, type DestinationPolicy } from '../webhooks/destination';
import { WebhookSecrets, type SecretOwner } from '../webhooks/secrets';

export interface EndpointScope {
  merchantId: string;
  livemode: boolean;
}

export interface NewEndpoint {
  url: string;
  enabledEvents: string[];
  description: string | null;
  apiVersion: string;
}

export interface EndpointChanges {
  url?: string;
  enabledEvents?: string[];
  description?: string | null;
  status?: WebhookEndpointStatus;
}

export interface EndpointListQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

/**
 * Why events of this mode may not go to `url`, or null: the destination policy (docs/webhooks.md,
 * "Where events may be sent"), credentials in the URL (they would be logged with it), and in live
 * mode every address the name resolves to now (resolved again at every attempt).
 */
export async function endpointUrlRefusal(url: string, livemode: boolean, policy: DestinationPolicy): Promise<string | null> {
  const refusal = urlRefusal(url, livemode, policy);
  if (refusal) return refusal;
  const target = new URL(url);
  if (target.username || target.password) return 'destination must not carry credentials; authenticate deliveries by their signature';
  if (!livemode) return null;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (parseIpLiteral(host)) return null; // a literal was checked by urlRefusal
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    return null; // a name that does not resolve yet fails its attempts, and is checked again then
  }
  const port = effectivePort(target);
  return addresses.map((a) => addressRefusal(parseIpLiteral(a.address)?.canonical ?? a.address, port, true, policy)).find((r) => r !== null) ?? null;
}

export function endpointView(row: WebhookEndpointRow): WebhookEndpointView {
  return {
    id: row.id, livemode: row.livemode, url: row.url, enabledEvents: JSON.parse(row.enabled_events) as string[],
    description: row.description, apiVersion: row.api_version, status: row.status, createdAt: Math.floor(row.created_at / 1000),
  };
}

export class WebhookEndpointService {
  private readonly secrets: WebhookSecrets;

  constructor(private readonly dataSource: DataSource, private readonly box: SecretBox, private readonly destinations: DestinationPolicy) {
    this.secrets = new WebhookSecrets(dataSource, box);
  }

  private get repo() {
    return this.dataSource.getRepository(WebhookEndpoint);
  }

  /** `400 parameter_invalid` (param `url`) when the URL may not receive this mode's events. */
  async checkUrl(url: string, livemode: boolean): Promise<void> {
    const refusal = await endpointUrlRefusal(url, livemode, this.destinations);
    if (refusal) throw new ApiError('parameter_invalid', { param: 'url', message: `\`url\` is refused: ${refusal}.` });
  }

  /** An endpoint of the scope, not deleted, or null. */
  private find(scope: EndpointScope, id: string): Promise<WebhookEndpointRow | null> {
    return this.repo.findOneBy({ id, merchant_id: scope.merchantId, livemode: scope.livemode, deleted_at: IsNull() });
  }

  private async get(scope: EndpointScope, id: string): Promise<WebhookEndpointRow> {
    const endpoint = await this.find(scope, id);
    if (!endpoint) throw new ApiError('object_not_found', { param: 'id', message: `No such webhook endpoint: ${id}.` });
    return endpoint;
  }

  /**
   * Creates the endpoint bound to `id` with a new secret. A retry of a create that got that far
   * (`retry`) answers the endpoint it made, with its secret: the first answer never arrived.
   */
  async create(scope: EndpointScope, input: NewEndpoint, id = newId('webhookEndpoint'), retry = false): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    if (retry) {
      const existing = await this.find(scope, id);
      if (existing) return { endpoint: endpointView(existing), secret: (await this.secrets.signing({ merchantId: scope.merchantId, endpointId: id }))[0]! };
    }
    const count = await this.repo.count({ where: { merchant_id: scope.merchantId, livemode: scope.livemode, deleted_at: IsNull() } });
    if (count >= MAX_WEBHOOK_ENDPOINTS) {
      throw new ApiError('parameter_invalid', { param: 'url', message: `An account may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per mode; delete one first.` });
    }
    const nowMs = Date.now();
    const endpoint: Omit<WebhookEndpointRow, 'seq'> = {
      id, merchant_id: scope.merchantId, livemode: scope.livemode, url: input.url,
      enabled_events: JSON.stringify(normalizeEnabledEvents(input.enabledEvents)), description: input.description,
      api_version: input.apiVersion, status: 'enabled', operator_managed: false,
      created_at: nowMs, updated_at: nowMs, deleted_at: null,
    };
    let secret = '';
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.getRepository(WebhookEndpoint).insert(endpoint);
        secret = await new WebhookSecrets(manager, this.box).add({ merchantId: scope.merchantId, endpointId: id });
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return { endpoint: endpointView(await this.get(scope, id)), secret: (await this.secrets.signing({ merchantId: scope.merchantId, endpointId: id }))[0]! };
    }
    return { endpoint: endpointView((await this.find(scope, id))!), secret };
  }

  /** One page of the scope's endpoints, newest first. */
  async list(scope: EndpointScope, query: EndpointListQuery): Promise<{ rows: WebhookEndpointView[]; hasMore: boolean } | CursorNotFound> {
    const page = await seqPageOf(this.repo, scope, query);
    if ('cursorNotFound' in page) return page;
    const select = this.repo.createQueryBuilder('e')
      .where('e.merchant_id = :merchantId AND e.livemode = :livemode AND e.deleted_at IS NULL', { merchantId: scope.merchantId, livemode: scope.livemode });
    const { rows, hasMore } = pageRows(await cutPage(select, 'e', page).getMany(), page);
    return { rows: rows.map(endpointView), hasMore };
  }

  async retrieve(scope: EndpointScope, id: string): Promise<WebhookEndpointView> {
    return endpointView(await this.get(scope, id));
  }

  async update(scope: EndpointScope, id: string, changes: EndpointChanges): Promise<WebhookEndpointView> {
    await this.get(scope, id);
    const patch: Partial<WebhookEndpointRow> = { updated_at: Date.now() };
    if (changes.url !== undefined) patch.url = changes.url;
    if (changes.enabledEvents !== undefined) patch.enabled_events = JSON.stringify(normalizeEnabledEvents(changes.enabledEvents));
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.status !== undefined) patch.status = changes.status;
    await this.repo.update({ id }, patch);
    return endpointView(await this.get(scope, id));
  }

  /** Deleted endpoints get no more deliveries; their past deliveries keep naming them. */
  async delete(scope: EndpointScope, id: string): Promise<void> {
    await this.get(scope, id);
    const nowMs = Date.now();
    await this.repo.update({ id }, { deleted_at: nowMs, updated_at: nowMs });
  }

  /** A new secret; the current ones keep signing (two signatures per delivery) for `graceSeconds`. */
  async rotateSecret(scope: EndpointScope, id: string, graceSeconds: number): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    const endpoint = await this.get(scope, id);
    const secret = await this.secrets.rotate([{ merchantId: scope.merchantId, endpointId: id }], graceSeconds);
    return { endpoint: endpointView(endpoint), secret };
  }

  // The admin command's `--webhook-url`: one endpoint per mode, `enabled_events` ["*"], signed
  // with the merchant's own secret (copied to it), so the secret the operator handed out verifies.

  /** Sets (or, with null, deletes) the operator-managed endpoints of both modes. */
  async setOperatorUrl(merchantId: string, url: string | null, apiVersion: string): Promise<void> {
    for (const livemode of [false, true]) {
      const scope = { merchantId, livemode };
      const managed = await this.repo.findOneBy({ merchant_id: merchantId, livemode, operator_managed: true, deleted_at: IsNull() });
      if (url === null) {
        if (managed) await this.delete(scope, managed.id);
      } else if (managed) {
        await this.repo.update({ id: managed.id }, { url, updated_at: Date.now() });
      } else {
        const id = newId('webhookEndpoint');
        const nowMs = Date.now();
        await this.dataSource.transaction(async (manager) => {
          await manager.getRepository(WebhookEndpoint).insert({
            id, merchant_id: merchantId, livemode, url, enabled_events: '["*"]', description: null, api_version: apiVersion,
            status: 'enabled', operator_managed: true, created_at: nowMs, updated_at: nowMs, deleted_at: null,
          });
          await new WebhookSecrets(manager, this.box).copy({ merchantId, endpointId: null }, { merchantId, endpointId: id });
        });
      }
    }
  }

  /** A new secret for the merchant's own signing and its operator-managed endpoints alike. */
  async rotateOperatorSecret(merchantId: string, graceSeconds: number): Promise<string> {
    const owners: SecretOwner[] = await this.secrets.operatorOwners(merchantId);
    return this.secrets.rotate(owners, graceSeconds);
  }
}
