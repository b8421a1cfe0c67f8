// Starts the real services once for the integration suite: MariaDB (fresh database), the codec
// server (`npm run codec-server`) and a Temporal dev server whose UI decodes through it, the sandbox
// acquirer and one worker process. Tests start their own API in-process.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { PROJECT_ROOT } from '../../src/config';
import { migrate } from '../../src/db/migrate';
import { startDevServer } from '../../src/temporal/dev-server';
import { TEST_LOG_DIR, spawnTs, waitForLog } from './processes';
import { TEST_CODEC_ENV } from '../replay/codec-test-key';
import { TEST_ENV, workerEnv } from './test-env';

async function recreateDatabase(url: string): Promise<void> {
  const parsed = new URL(url);
  const name = parsed.pathname.slice(1);
  const connection = await mysql.createConnection({ host: parsed.hostname, port: Number(parsed.port || 3306), user: parsed.username || 'root', password: parsed.password });
  try {
    await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
  } finally {
    await connection.end();
  }
}

export default async function globalSetup(): Promise<void> {
  fs.rmSync(TEST_LOG_DIR, { recursive: true, force: true });
  fs.mkdirSync(TEST_LOG_DIR, { recursive: true });
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'ensure-mariadb.sh'), TEST_ENV.databaseUrl], { stdio: 'inherit' });
  await recreateDatabase(TEST_ENV.databaseUrl);
  await migrate(TEST_ENV.databaseUrl);

  const uiOrigin = `http://127.0.0.1:${TEST_ENV.temporalUiPort}`;
  const codecServer = spawnTs('codec-server', 'scripts/codec-server.ts', {
    ...TEST_CODEC_ENV, CODEC_PORT: String(TEST_ENV.codecPort), CODEC_CORS_ORIGINS: uiOrigin,
  });
  await waitForLog(codecServer.logFile, 'codec server listening');
  const temporal = await startDevServer({
    port: TEST_ENV.temporalPort,
    uiPort: TEST_ENV.temporalUiPort,
    codecEndpoint: `http://127.0.0.1:${TEST_ENV.codecPort}`,
    dbFile: null,
    logFile: path.join(TEST_LOG_DIR, 'temporal.log'),
  });

  const sandbox = spawnTs('sandbox', 'src/provider/sandbox/main.ts', {
    SANDBOX_PORT: String(TEST_ENV.sandboxPort),
    SANDBOX_SETTLE_MS: String(TEST_ENV.settleMs),
    SANDBOX_NOTIFY_SECRET: TEST_ENV.notifySecret,
    SANDBOX_CONTROL_TOKEN: TEST_ENV.sandboxControlToken,
  });
  await waitForLog(sandbox.logFile, 'listening');
  const worker = spawnTs('worker', 'workers/main.ts', workerEnv({ WORKER_METRICS_PORT: String(TEST_ENV.workerMetricsPort) }));
  await waitForLog(worker.logFile, 'worker running', 120_000);

  (globalThis as Record<string, unknown>).__TEST_SERVICES__ = { temporal, codecServer, sandbox, worker };
}
