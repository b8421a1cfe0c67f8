// `npm start`: everything a newcomer needs in one process tree. Starts, as needed, the Temporal dev
// server (when TEMPORAL_ADDRESS is unset) with its Web UI decoding payloads through the codec
// server it also starts, MariaDB (for a mysql:// DATABASE_URL), the migrations, the sandbox
// acquirer, a worker and the API. Without DATABASE_URL it uses an embedded SQLite file under
// .data/. Ctrl-C stops everything.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PROJECT_ROOT, TEMPORAL_SECRETS, assertSecrets, config, devServicesToStart, portOf } from '../src/config';
import { databaseKind } from '../src/db/data-source';
import { migrate } from '../src/db/migrate';
import { startApi } from '../src/api/server';
import { createLogger } from '../src/observability/logger';
import { startSandbox } from '../src/provider/sandbox/app';
import { sandboxConfig } from '../src/provider/sandbox/config';
import { EncryptionCodec } from '../src/temporal/codec';
import { startCodecServer, type RunningCodecServer } from '../src/temporal/codec-server';
import { startDevServer, type DevServer } from '../src/temporal/dev-server';
import { startWorker } from '../workers/worker';

async function main(): Promise<void> {
  assertSecrets(['VAULT_KEY', 'SANDBOX_NOTIFY_SECRET', 'SANDBOX_CONTROL_TOKEN', ...TEMPORAL_SECRETS, 'CODEC_AUTH_TOKEN']);
  const cfg = config();
  const sandboxSettings = sandboxConfig();
  const logger = createLogger('dev', cfg.logLevel);
  const stops: Array<() => Promise<void>> = [];
  const start = devServicesToStart();

  if (databaseKind(cfg.databaseUrl) === 'mysql') {
    execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'ensure-mariadb.sh'), cfg.databaseUrl], { stdio: 'inherit' });
  }
  // The operator's view of encrypted payloads: the UI below decodes through it.
  let codecServer: RunningCodecServer | null = null;
  if (cfg.temporalCodec) {
    const running = await startCodecServer({ settings: cfg.codecServer, namespace: cfg.temporalNamespace, codec: new EncryptionCodec(cfg.temporalCodec), logger });
    codecServer = running;
    stops.push(() => running.close());
  }
  let temporal: DevServer | null = null;
  if (start.temporal) {
    // The HTTP API port is fixed so that webhooks can be kept off it (src/webhooks/destination.ts).
    temporal = await startDevServer({
      port: portOf(cfg.temporalAddress), uiPort: cfg.temporalUiPort, dbFile: path.join(cfg.dataDir, 'temporal.sqlite'), logFile: path.join(cfg.dataDir, 'temporal.log'),
      codecEndpoint: codecServer?.url,
      extraArgs: ['--http-port', String(cfg.temporalHttpPort)],
    });
    stops.push(() => temporal!.stop());
  }
  const ran = await migrate(cfg.databaseUrl);
  if (ran.length) logger.info({ migrations: ran }, 'migrations applied');

  // The sandbox's control endpoints (/_sandbox/*) take this bearer token: one per run unless set.
  let controlToken: string | null = null;
  if (start.sandbox) {
    controlToken = sandboxSettings.controlToken ?? randomBytes(24).toString('base64url');
    const sandbox = await startSandbox({ ...sandboxSettings, controlToken });
    stops.push(() => sandbox.close());
  }
  const worker = await startWorker(cfg);
  stops.push(() => worker.shutdown());
  const api = await startApi(cfg, logger);
  stops.push(() => api.close());

  const lines = [
    '',
    `  API            ${cfg.publicBaseUrl}  (health: ${cfg.publicBaseUrl}/v1/health)`,
    `  API docs       ${cfg.publicBaseUrl}/docs`,
    temporal?.uiUrl ? `  Temporal UI    ${temporal.uiUrl}` : `  Temporal       ${cfg.temporalAddress}`,
    codecServer ? `  Codec server   ${codecServer.url}  (temporal workflow show --codec-endpoint ${codecServer.url} ...)` : '  Codec          off (TEMPORAL_CODEC=off): payloads reach Temporal in plaintext',
    `  Database       ${databaseKind(cfg.databaseUrl) === 'sqlite' ? cfg.databaseUrl : cfg.databaseUrl.replace(/\/\/[^@]*@/, '//***@')}`,
    `  Metrics        API ${api.metricsPort !== null ? `http://${cfg.apiMetricsHost}:${api.metricsPort}/metrics` : `${cfg.publicBaseUrl}/metrics`}, worker ${worker.metricsPort === null ? '(port taken, not served)' : `http://${cfg.workerMetricsHost}:${worker.metricsPort}/metrics (health: /health)`}`,
    ...(controlToken ? [`  Sandbox        ${cfg.sandboxUrl}  (/_sandbox/* with Authorization: Bearer ${controlToken})`] : []),
    '',
    '  Create a merchant:  npm run admin -- merchant create --name "My Shop" --json',
    '  Press Ctrl-C to stop.',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping...\n');
    // Each part gets a few seconds; a worker still draining long polls must not hold the rest.
    for (const fn of stops.reverse()) {
      await Promise.race([fn().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000))]);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => { void stop(); });
  process.on('SIGTERM', () => { void stop(); });
}

main().catch((error: unknown) => {
  process.stderr.write(`start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
