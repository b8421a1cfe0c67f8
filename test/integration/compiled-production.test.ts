// Production runs compiled JavaScript with plain node (Dockerfile, docker-compose.yml): `npm run
// build` compiles to dist/, the compiled API and worker start against the test stack (the worker
// bundling its workflows from dist/), answer their health checks, and exit 0 soon after SIGTERM.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config';
import { spawnCompiled, waitForLog, type ManagedProcess } from '../helpers/processes';
import { TEST_ENV, workerEnv } from '../helpers/test-env';

const ENTRIES = ['dist/src/api/main.js', 'dist/workers/main.js', 'dist/src/provider/sandbox/main.js', 'dist/scripts/codec-server.js', 'dist/src/db/migrate.js'];

/** What the process logged since it started, as pino's JSON lines. */
function logLines(process: ManagedProcess): Array<Record<string, unknown>> {
  return fs.readFileSync(process.logFile, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function exitOnSigterm(process: ManagedProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => process.child.once('exit', (code) => resolve(code)));
  process.child.kill('SIGTERM');
  return { code: await exited, ms: Date.now() - started };
}

beforeAll(async () => {
  // The type check is `npm run typecheck`'s; this compiles what the image compiles.
  await promisify(execFile)('npm', ['run', 'build', '--', '--noCheck'], { cwd: PROJECT_ROOT });
}, 300_000);

it('builds every production entry point into dist/', () => {
  for (const entry of ENTRIES) expect({ entry, built: fs.existsSync(path.join(PROJECT_ROOT, entry)) }).toEqual({ entry, built: true });
});

it('the compiled API and worker run with node, answer their health checks and exit 0 on SIGTERM', async () => {
  // Only what a container would get: no tsx, none of the suite's own settings.
  const env = { ...workerEnv(), PATH: process.env.PATH!, HOME: os.homedir(), PORT: '0', SANDBOX_NOTIFY_SECRET: TEST_ENV.notifySecret, LOG_LEVEL: 'info' };
  const api = spawnCompiled('compiled-api', 'dist/src/api/main.js', env, { inheritEnv: false });
  const worker = spawnCompiled('compiled-worker', 'dist/workers/main.js', env, { inheritEnv: false });
  try {
    await waitForLog(api.logFile, 'API listening', 60_000);
    await waitForLog(worker.logFile, 'worker running', 120_000);
    const url = logLines(api).filter((l) => l.msg === 'API listening').at(-1)!.url as string;
    const workerPort = logLines(worker).filter((l) => l.msg === 'worker metrics on /metrics, health on /health').at(-1)!.port as number;

    expect((await fetch(`${url}/v1/health`)).status).toBe(200);
    const health = await fetch(`http://127.0.0.1:${workerPort}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', polling: true });

    const [apiExit, workerExit] = await Promise.all([exitOnSigterm(api), exitOnSigterm(worker)]);
    expect(apiExit.code).toBe(0);
    expect(workerExit.code).toBe(0);
    expect(apiExit.ms).toBeLessThan(10_000);
    expect(workerExit.ms).toBeLessThan(15_000);
    expect(logLines(worker).some((l) => l.msg === 'worker stopped')).toBe(true);
  } finally {
    await Promise.all([api.stop('SIGKILL'), worker.stop('SIGKILL')]);
  }
}, 180_000);
