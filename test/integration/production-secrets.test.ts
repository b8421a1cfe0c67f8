// Development secrets never reach production: with NODE_ENV=production, or a live provider
// configured, each entry point refuses to start on a secret it uses that is missing or a
// development value, and names the variable. The API, run with its own notify secret, refuses a
// provider notification forged with the published development one.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { signNotification } from '../../src/provider/sandbox/notify';
import { runToExit } from '../helpers/processes';
import { startApiProcess } from '../helpers/temporal';
import { TEST_CODEC_ENV } from '../replay/codec-test-key';

const GOOD_VAULT_KEY = randomBytes(32).toString('hex');
const GOOD_SECRET = randomBytes(24).toString('base64url');
const GOOD_CODEC_KEYS = `k1:${randomBytes(32).toString('hex')}`;
let dataDir: string;

beforeAll(() => { dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-')); });
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Runs an entry point with only these settings (none of the suite's), and waits for it to exit. */
function run(entry: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; output: string }> {
  // Ports nobody listens on: a process that got past the check could not reach anything.
  return runToExit(entry, { DATA_DIR: dataDir, TEMPORAL_ADDRESS: '127.0.0.1:1', PORT: '0', SANDBOX_PORT: '0', WORKER_METRICS_PORT: '0', ...env }, args);
}

const PRODUCTION = { NODE_ENV: 'production' };

describe('with NODE_ENV=production or a live provider, an entry point on a development secret', () => {
  it.each<[string, string, Record<string, string>, string[], string[]]>([
    ['the API, without secrets', 'src/api/main.ts', PRODUCTION, ['VAULT_KEY is not set', 'SANDBOX_NOTIFY_SECRET is not set'], []],
    ['the API, with the default notify secret', 'src/api/main.ts', { ...PRODUCTION, VAULT_KEY: GOOD_VAULT_KEY, SANDBOX_NOTIFY_SECRET: 'sandbox-dev-secret' }, ['SANDBOX_NOTIFY_SECRET is a published development value'], ['VAULT_KEY']],
    ['the API, with the default vault key', 'src/api/main.ts', { ...PRODUCTION, VAULT_KEY: '0'.repeat(64), SANDBOX_NOTIFY_SECRET: GOOD_SECRET }, ['VAULT_KEY is a development key'], ['SANDBOX_NOTIFY_SECRET']],
    ['the API, with a live provider and no NODE_ENV', 'src/api/main.ts', { LIVE_PROVIDER_URL: 'https://acquirer.example.net', SANDBOX_NOTIFY_SECRET: GOOD_SECRET }, ['VAULT_KEY is not set'], []],
    ['the worker, with the default vault key', 'workers/main.ts', { ...PRODUCTION, VAULT_KEY: '0'.repeat(64) }, ['VAULT_KEY is a development key'], []],
    ['the worker, with the test suite\'s vault key', 'workers/main.ts', { ...PRODUCTION, VAULT_KEY: 'a1'.repeat(32) }, ['VAULT_KEY is a development key'], []],
    ['the worker, with a live provider and no vault key', 'workers/main.ts', { LIVE_PROVIDER_URL: 'https://acquirer.example.net' }, ['VAULT_KEY is not set'], []],
    ['the sandbox, with the compose file\'s placeholder', 'src/provider/sandbox/main.ts', { ...PRODUCTION, SANDBOX_NOTIFY_SECRET: 'change-me-sandbox-secret' }, ['SANDBOX_NOTIFY_SECRET is a published development value'], []],
    ['the sandbox, with a short control token', 'src/provider/sandbox/main.ts', { ...PRODUCTION, SANDBOX_NOTIFY_SECRET: GOOD_SECRET, SANDBOX_CONTROL_TOKEN: 'letmein' }, ['SANDBOX_CONTROL_TOKEN is shorter than 32 characters'], []],
    ['npm start', 'scripts/dev.ts', PRODUCTION, ['VAULT_KEY is not set', 'SANDBOX_NOTIFY_SECRET is not set', 'TEMPORAL_CODEC_KEYS is not set'], []],
    ['the API, without a codec key ring', 'src/api/main.ts', { ...PRODUCTION, VAULT_KEY: GOOD_VAULT_KEY, SANDBOX_NOTIFY_SECRET: GOOD_SECRET }, ['TEMPORAL_CODEC_KEYS is not set'], ['VAULT_KEY', 'SANDBOX_NOTIFY_SECRET']],
    ['the worker, with the development codec key', 'workers/main.ts', { ...PRODUCTION, VAULT_KEY: GOOD_VAULT_KEY, TEMPORAL_CODEC_KEYS: `dev:${'de'.repeat(32)}` }, ['TEMPORAL_CODEC_KEYS holds a development key (one byte repeated): dev'], ['VAULT_KEY']],
    ['the worker, with the committed histories\' test key', 'workers/main.ts', { ...PRODUCTION, VAULT_KEY: GOOD_VAULT_KEY, ...TEST_CODEC_ENV }, ['TEMPORAL_CODEC_KEYS holds a development key (one byte repeated): test-histories'], []],
    ['the worker, with the codec switched off', 'workers/main.ts', { ...PRODUCTION, VAULT_KEY: GOOD_VAULT_KEY, TEMPORAL_CODEC_KEYS: GOOD_CODEC_KEYS, TEMPORAL_CODEC: 'off' }, ['TEMPORAL_CODEC is off'], ['TEMPORAL_CODEC_KEYS']],
    ['the admin command, with a live provider and no codec key ring', 'src/admin/cli.ts', { LIVE_PROVIDER_URL: 'https://acquirer.example.net', VAULT_KEY: GOOD_VAULT_KEY }, ['TEMPORAL_CODEC_KEYS is not set'], ['VAULT_KEY']],
    ['the codec server, with a short operator credential', 'scripts/codec-server.ts', { ...PRODUCTION, TEMPORAL_CODEC_KEYS: GOOD_CODEC_KEYS, CODEC_AUTH_TOKEN: 'letmein' }, ['CODEC_AUTH_TOKEN is shorter than 32 characters'], ['TEMPORAL_CODEC_KEYS']],
  ])('%s: refuses to start, naming the variable', async (_label, entry, env, named, notNamed) => {
    const { code, output } = await run(entry, env);
    expect(code).toBe(1);
    expect(output).toContain('refusing to start with development secrets');
    for (const text of named) expect(output).toContain(text);
    for (const variable of notNamed) expect(output).not.toContain(`${variable} is`);
  });

  it('the admin command refuses before it touches the database', async () => {
    const { code, output } = await run('src/admin/cli.ts', PRODUCTION, ['merchant', 'create', '--name', 'Shop', '--json']);
    expect(code).toBe(1);
    expect(output).toContain('VAULT_KEY is not set');
    expect(fs.existsSync(path.join(dataDir, 'payments.sqlite'))).toBe(false);
  });
});

describe('the API in production with its own notify secret', () => {
  it('refuses a provider notification signed with the published development secret', async () => {
    const { process: api, url } = await startApiProcess('api-production-secrets', {
      NODE_ENV: 'production', VAULT_KEY: GOOD_VAULT_KEY, SANDBOX_NOTIFY_SECRET: GOOD_SECRET, TEMPORAL_CODEC_KEYS: GOOD_CODEC_KEYS, TEMPORAL_CODEC_KEY_ID: 'k1',
    });
    try {
      const body = JSON.stringify({ type: 'authorization.updated', authorization_id: 'auth_forged', reference: `pay_${'F'.repeat(24)}` });
      const notify = (secret: string) => fetch(`${url}/internal/provider/notifications`, {
        method: 'POST', body, headers: { 'Content-Type': 'application/json', 'Sandbox-Signature': signNotification(body, secret) },
      });
      const forged = await notify('sandbox-dev-secret');
      expect(forged.status).toBe(401);
      expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
      // The same body signed with the service's secret is taken (the payment does not exist: nothing to move).
      expect((await notify(GOOD_SECRET)).status).toBe(204);
    } finally {
      await api.stop();
    }
  });
});
