// Webhook endpoints (docs/webhooks.md, "Endpoints"): the merchant's API and the admin
// command's `--webhook-url` work on the same rows. An endpoint belongs to one merchant and mode;
// every read and write stays inside the caller's. Secrets are sealed at rest and shown once: in the
// answer of a create and of a rotation.
import { lookup } from 'node:dns/promises';
import { IsNull, type DataSource, type EntityManager } from 'typeorm';
import { Merchant, WebhookEndpoint, type WebhookEndpointRow, type WebhookEndpointStatus } from '../db/entities';
import { isMysql } from '../db/dialect';
import { isDuplicateKeyError } from '../db/errors';
import { ApiError } from '../domain/errors';
import { newId } from '../domain/ids';
import { parseIpLiteral } from '../domain/ip';
import { MAX_WEBHOOK_ENDPOINTS, normalizeEnabledEvents, type WebhookEndpointView } from '../domain/webhook-endpoints';
import { cutPage, pageRows, seqPageOf, type CursorNotFound } from '../read-models/seq-pages';
import { retryingDeadlocks } from '../read-models/versioned-upsert';
import type { SecretBox } from '../vault/crypto';
import { endPendingDeliveries, probeNow, resumeEndpoint } from '../webhooks/circuit';
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

const ENDPOINT_COLUMNS = [
  'id', 'merchant_id', 'livemode', 'url', 'enabled_events', 'description', 'api_version', 'status', 'operator_managed', 'created_at', 'updated_at', 'deleted_at',
  'failing_since', 'disabled_reason',
] as const;

/** What the service needs to resume an endpoint's circuit (src/webhooks/circuit.ts) when it is enabled again. */
export interface EndpointCircuits {
  retrySpanMs: number;
}

/**
 * Inserts the endpoint only while its merchant and mode have fewer than MAX_WEBHOOK_ENDPOINTS, as
 * one statement: a count and then an insert let racing creates pass the limit. On MySQL the
 * merchant's row lock makes the creates of one merchant wait for each other (the statement's own
 * shared locks alone would make them deadlock); SQLite runs one statement at a time. Whether it
 * inserted.
 */
async function insertWithinLimit(manager: EntityManager, endpoint: Omit<WebhookEndpointRow, 'seq'>): Promise<boolean> {
  const escape = (name: string) => manager.connection.driver.escape(name);
  const table = escape(manager.connection.getMetadata(WebhookEndpoint).tableName);
  if (isMysql(manager)) {
    await manager.query(`SELECT id FROM ${escape(manager.connection.getMetadata(Merchant).tableName)} WHERE id = ? FOR UPDATE`, [endpoint.merchant_id]);
  }
  const values = ENDPOINT_COLUMNS.map((column) => (typeof endpoint[column] === 'boolean' ? (endpoint[column] ? 1 : 0) : endpoint[column]));
  await manager.query(
    `INSERT INTO ${table} (${ENDPOINT_COLUMNS.map(escape).join(', ')}) SELECT ${ENDPOINT_COLUMNS.map(() => '?').join(', ')}`
    + ` FROM (SELECT COUNT(*) AS n FROM ${table} WHERE merchant_id = ? AND livemode = ? AND deleted_at IS NULL) counted WHERE counted.n < ?`,
    [...values, endpoint.merchant_id, endpoint.livemode ? 1 : 0, MAX_WEBHOOK_ENDPOINTS],
  );
  return (await manager.getRepository(WebhookEndpoint).countBy({ id: endpoint.id })) > 0;
}

export function endpointView(row: WebhookEndpointRow): WebhookEndpointView {
  return {
    id: row.id, livemode: row.livemode, url: row.url, enabledEvents: JSON.parse(row.enabled_events) as string[],
    description: row.description, apiVersion: row.api_version, status: row.status, disabledReason: row.status === 'disabled' ? row.disabled_reason : null,
    createdAt: Math.floor(row.created_at / 1000),
  };
}

export class WebhookEndpointService {
  private readonly secrets: WebhookSecrets;

  /** `circuits` is left out by the admin command, which never enables an endpoint again. */
  constructor(
    private readonly dataSource: DataSource, private readonly box: SecretBox, private readonly destinations: DestinationPolicy,
    private readonly circuits?: EndpointCircuits,
  ) {
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
    const nowMs = Date.now();
    const endpoint: Omit<WebhookEndpointRow, 'seq'> = {
      id, merchant_id: scope.merchantId, livemode: scope.livemode, url: input.url,
      enabled_events: JSON.stringify(normalizeEnabledEvents(input.enabledEvents)), description: input.description,
      api_version: input.apiVersion, status: 'enabled', operator_managed: false,
      created_at: nowMs, updated_at: nowMs, deleted_at: null, failing_since: null, disabled_reason: null, next_drain_at: null, drain_lease_until: null,
    };
    let secret: string | null;
    try {
      secret = await retryingDeadlocks(() => this.dataSource.transaction(async (manager) => {
        if (!(await insertWithinLimit(manager, endpoint))) return null;
        return new WebhookSecrets(manager, this.box).add({ merchantId: scope.merchantId, endpointId: id });
      }));
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return { endpoint: endpointView(await this.get(scope, id)), secret: (await this.secrets.signing({ merchantId: scope.merchantId, endpointId: id }))[0]! };
    }
    if (secret === null) {
      throw new ApiError('parameter_invalid', { param: 'url', message: `An account may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per mode; delete one first.` });
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

  /**
   * A disabled endpoint that is enabled again resumes its pending deliveries (drained at once); a
   * new URL is probed at once. A disable stops its circuit's next drain.
   */
  async update(scope: EndpointScope, id: string, changes: EndpointChanges): Promise<WebhookEndpointView> {
    const before = await this.get(scope, id);
    const patch: Partial<WebhookEndpointRow> = { updated_at: Date.now() };
    if (changes.url !== undefined) patch.url = changes.url;
    if (changes.enabledEvents !== undefined) patch.enabled_events = JSON.stringify(normalizeEnabledEvents(changes.enabledEvents));
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.status !== undefined) patch.status = changes.status;
    if (changes.status === 'disabled') patch.disabled_reason = null; // the merchant's own disable
    await this.repo.update({ id }, patch);
    if (changes.status === 'enabled' && before.status === 'disabled') {
      if (this.circuits) await resumeEndpoint(this.dataSource, id, this.circuits.retrySpanMs);
    } else if (changes.url !== undefined) await probeNow(this.dataSource, id);
    return endpointView(await this.get(scope, id));
  }

  /** Deleted endpoints get no more deliveries, and their pending ones end; their past deliveries keep naming them. */
  async delete(scope: EndpointScope, id: string): Promise<void> {
    await this.get(scope, id);
    const nowMs = Date.now();
    await this.repo.update({ id }, { deleted_at: nowMs, updated_at: nowMs });
    await endPendingDeliveries(this.dataSource, id, nowMs);
  }

  /**
   * A new secret, stored under `secretId` (the id bound to the request's Idempotency-Key); the
   * current ones keep signing (two signatures per delivery) for `graceSeconds`. A retry of a rotation
   * that got as far as storing its secret (`retry`) answers that secret instead of rotating again.
   */
  async rotateSecret(scope: EndpointScope, id: string, graceSeconds: number, secretId = newId('webhookSecret'), retry = false): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    const endpoint = await this.get(scope, id);
    const owner = { merchantId: scope.merchantId, endpointId: id };
    const made = retry ? await this.secrets.byId(owner, secretId) : null;
    // As for a replay: never hand out a secret that a later rotation retired.
    if (made !== null) await this.checkSecretReplay(scope, id, made);
    const secret = made ?? await this.secrets.rotate([owner], graceSeconds, undefined, secretId);
    return { endpoint: endpointView(endpoint), secret };
  }

  /**
   * Whether a saved answer that shows `secret` of endpoint `id` may be replayed: not once the endpoint
   * is deleted (`404 object_not_found`), nor once that secret was rotated away, grace period or not
   * (`409 idempotency_replay_unavailable`). A replay hands out only a secret that still signs alone.
   */
  async checkSecretReplay(scope: EndpointScope, id: string, secret: string): Promise<void> {
    if (!(await this.find(scope, id))) {
      throw new ApiError('object_not_found', { message: `Webhook endpoint ${id}, which this Idempotency-Key's request answered, has since been deleted.` });
    }
    if (!(await this.secrets.isCurrent({ merchantId: scope.merchantId, endpointId: id }, secret))) {
      throw new ApiError('idempotency_replay_unavailable', {
        param: 'Idempotency-Key',
        message: `The answer saved for this Idempotency-Key shows a secret of webhook endpoint ${id} that has since been rotated away, so it is not replayed; read the endpoint, and rotate its secret to get a new one.`,
      });
    }
  }

  // The admin command's `--webhook-url`: one endpoint per mode, `enabled_events` ["*"], signed
  // with the merchant's own secret (copied to it), so the secret the operator handed out verifies.

  /**
   * Sets (or, with null, deletes) the operator-managed endpoints of both modes. A URL live mode may
   * not send to (plain http, loopback: a local development receiver) sets the test-mode endpoint
   * only, and removes a live one.
   */
  async setOperatorUrl(merchantId: string, operatorUrl: string | null, apiVersion: string): Promise<void> {
    for (const livemode of [false, true]) {
      const scope = { merchantId, livemode };
      const url = livemode && operatorUrl !== null && urlRefusal(operatorUrl, true, this.destinations) !== null ? null : operatorUrl;
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
            status: 'enabled', operator_managed: true, created_at: nowMs, updated_at: nowMs, deleted_at: null, failing_since: null, disabled_reason: null,
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
