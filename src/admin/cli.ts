// `npm run admin -- ...`: the operator command (docs/operations.md, "Merchants and keys"). Prints
// JSON with --json.
import { parseArgs } from 'node:util';
import { TEMPORAL_SECRETS, assertSecrets, config } from '../config';
import { openDataSource } from '../db/data-source';
import { migrate } from '../db/migrate';
import { SecretBox } from '../vault/crypto';
import { connectTemporal } from '../temporal/client';
import { destinationPolicy } from '../webhooks/destination';
import { startDelivery as startWebhookDelivery } from '../temporal/start-delivery';
import { AdminError, AdminOperations } from '../services/admin-operations';

const USAGE = `usage:
  admin merchant create --name NAME [--currencies USD,EUR] [--default-version DATE] [--webhook-url URL] [--json]
  admin merchant update MERCHANT_ID [--payments on|off] [--payouts on|off] [--provisioned on|off]
                        [--currencies ...] [--default-version DATE] [--webhook-url URL] [--json]
  admin merchant show MERCHANT_ID [--json]
  admin key create --merchant MERCHANT_ID --mode test|live [--no-refunds] [--expires-at UNIX] [--json]
  admin key revoke KEY [--json]
  admin webhook rotate-secret MERCHANT_ID [--grace-seconds N] [--json]   (default grace: 86400)
  admin events list --merchant MERCHANT_ID [--limit N] [--json]
  admin events attempts EVENT_ID [--json]
  admin events resend EVENT_ID [--json]`;

function onOff(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new AdminError(`--${name} must be on or off`);
  return value === 'on';
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new AdminError(`--${name} must be a non-negative integer`);
  return n;
}

/** Starts a resend of one delivery; injected so the command needs Temporal only for resends. */
export type StartDelivery = (target: { eventId: string; deliveryId: string; workflowId: string }) => Promise<void>;

export async function runAdmin(argv: string[], ops: AdminOperations, startDelivery?: StartDelivery): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' }, currencies: { type: 'string' }, 'default-version': { type: 'string' },
      'webhook-url': { type: 'string' }, payments: { type: 'string' }, payouts: { type: 'string' },
      provisioned: { type: 'string' }, merchant: { type: 'string' }, mode: { type: 'string' },
      'no-refunds': { type: 'boolean' }, 'expires-at': { type: 'string' }, json: { type: 'boolean' },
      'grace-seconds': { type: 'string' }, limit: { type: 'string' },
    },
  });
  const [group, action, target] = positionals;
  if (group === 'merchant' && action === 'create') {
    return ops.createMerchant({ name: values.name ?? '', currencies: values.currencies, defaultVersion: values['default-version'], webhookUrl: values['webhook-url'] });
  }
  if (group === 'merchant' && action === 'update' && target) {
    return ops.updateMerchant(target, {
      payments: onOff('payments', values.payments), payouts: onOff('payouts', values.payouts), provisioned: onOff('provisioned', values.provisioned),
      currencies: values.currencies, defaultVersion: values['default-version'], webhookUrl: values['webhook-url'],
    });
  }
  if (group === 'merchant' && action === 'show' && target) return ops.showMerchant(target);
  if (group === 'key' && action === 'create') {
    if (!values.merchant) throw new AdminError('--merchant is required');
    if (values.mode !== 'test' && values.mode !== 'live') throw new AdminError('--mode must be test or live');
    let expiresAt: number | null = null;
    if (values['expires-at'] !== undefined) {
      expiresAt = Number(values['expires-at']);
      if (!Number.isInteger(expiresAt) || expiresAt <= 0) throw new AdminError('--expires-at must be a Unix timestamp');
    }
    return ops.createKey({ merchantId: values.merchant, mode: values.mode, refunds: !values['no-refunds'], expiresAt });
  }
  if (group === 'key' && action === 'revoke' && target) return ops.revokeKey(target);
  if (group === 'webhook' && action === 'rotate-secret' && target) return ops.rotateWebhookSecret(target, positiveInt('grace-seconds', values['grace-seconds'], 86400));
  if (group === 'events' && action === 'list') {
    if (!values.merchant) throw new AdminError('--merchant is required');
    return ops.listEvents(values.merchant, positiveInt('limit', values.limit, 20));
  }
  if (group === 'events' && action === 'attempts' && target) return ops.eventAttempts(target);
  if (group === 'events' && action === 'resend' && target) {
    const targets = await ops.resendTargets(target);
    if (!startDelivery) throw new AdminError('resend needs Temporal');
    for (const resend of targets) await startDelivery(resend);
    return { event_id: target, resends: targets.map((t) => ({ delivery_id: t.deliveryId, workflow_id: t.workflowId, url: t.url })) };
  }
  throw new AdminError(USAGE);
}

function print(result: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
    process.stdout.write(`${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}\n`);
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  assertSecrets(['VAULT_KEY', ...TEMPORAL_SECRETS]);
  const cfg = config();
  await migrate(cfg.databaseUrl);
  const dataSource = await openDataSource(cfg.databaseUrl);
  try {
    const startDelivery: StartDelivery = async (resend) => {
      const temporal = await connectTemporal(cfg);
      try {
        await startWebhookDelivery({ temporal, taskQueue: cfg.taskQueue, webhooks: { initialRetrySeconds: cfg.webhookInitialRetrySeconds } }, resend, 0, resend.workflowId);
      } finally {
        await temporal.connection.close();
      }
    };
    const result = await runAdmin(argv, new AdminOperations(dataSource, new SecretBox(cfg.vaultKeyHex), destinationPolicy(cfg)), startDelivery);
    print(result, argv.includes('--json'));
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const message = error instanceof AdminError ? error.message : `admin failed: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`${message}\n`);
    process.exit(error instanceof AdminError ? 2 : 1);
  });
}
