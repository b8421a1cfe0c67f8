// Metrics exposition: the API's /metrics and the worker's /metrics in Prometheus text format, on
// the ports operators are sent to, however the processes run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { call, createMerchant, directPaymentBody, eventually, useTestApi } from '../helpers/api';
import { freePort } from '../helpers/processes';
import { startApiProcess } from '../helpers/temporal';
import { TEST_ENV } from '../helpers/test-env';

const t = useTestApi();

it('the API exposes request counts and latency histograms by route and status', async () => {
  const merchant = await createMerchant(t.api);
  await call(t.api, 'GET', '/v1/payments', { key: merchant.testKey });
  await call(t.api, 'GET', '/v1/payments/pay_AAAAAAAAAAAAAAAAAAAAAAAA', { key: merchant.testKey });
  const res = await call(t.api, 'GET', '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(res.text).toMatch(/http_requests_total\{route="listPayments",method="GET",status="200"\} \d+/);
  expect(res.text).toMatch(/http_requests_total\{route="retrievePayment",method="GET",status="404"\} \d+/);
  expect(res.text).toMatch(/http_request_duration_seconds_bucket\{le="0\.05",route="listPayments",method="GET",status="200"\} \d+/);
  expect(res.text).toMatch(/workflow_outcomes_total|# HELP workflow_outcomes_total/);
});

it('the worker exposes provider latency, status changes and webhook delivery results', async () => {
  const merchant = await createMerchant(t.api);
  const created = await call(t.api, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody() });
  expect(created.status).toBe(201);
  const text = await eventually(
    async () => (await fetch(`http://127.0.0.1:${TEST_ENV.workerMetricsPort}/metrics`)).text(),
    (t) => /workflow_status_changes_total\{object="payment",status="succeeded"\} \d+/.test(t),
  );
  expect(text).toMatch(/provider_request_duration_seconds_count\{operation="authorize",outcome="processing"\} \d+/);
  expect(text).toMatch(/# TYPE webhook_delivery_attempts_total counter/);
});

/** Waits until `text` shows in a growing output, or fails with what came. */
async function waitForOutput(read: () => string, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!read().includes(text)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for "${text}"; output so far:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('metrics ports', () => {
  it('npm start serves the worker metrics on WORKER_METRICS_PORT and the API metrics on API_METRICS_PORT only', async () => {
    const [port, sandboxPort, workerMetricsPort, apiMetricsPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-start-'));
    // As `npm start` runs it (scripts/start.sh), on the suite's Temporal server and an embedded database of its own.
    const dev = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'scripts', 'dev.ts')], {
      cwd: PROJECT_ROOT,
      env: {
        PATH: process.env.PATH!, HOME: os.homedir(), DATA_DIR: dataDir, LOG_LEVEL: 'warn',
        TEMPORAL_ADDRESS: `127.0.0.1:${TEST_ENV.temporalPort}`, TEMPORAL_TASK_QUEUE: `dev-start-${Date.now()}`, CHORE_SCHEDULES: 'off',
        PORT: String(port), SANDBOX_PORT: String(sandboxPort), WORKER_METRICS_PORT: String(workerMetricsPort), API_METRICS_PORT: String(apiMetricsPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    dev.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    dev.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    const exited = new Promise<number | null>((resolve) => dev.once('exit', (code) => resolve(code)));
    try {
      await waitForOutput(() => output, 'Press Ctrl-C to stop.', 120_000);
      const worker = await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`).catch((error: unknown) => ({ status: String(error), headers: new Headers(), text: async () => '' }));
      expect(worker.status).toBe(200);
      expect(worker.headers.get('content-type')).toMatch(/^text\/plain/);
      const workerText = await worker.text();
      expect(workerText).toContain('# TYPE provider_request_duration_seconds histogram');
      expect(workerText).toContain('# TYPE webhook_delivery_attempts_total counter');
      // Its start-up lines send the operator there.
      expect(output).toContain(`worker http://127.0.0.1:${workerMetricsPort}/metrics`);
      expect(output).toContain(`API http://127.0.0.1:${apiMetricsPort}/metrics`);

      const health = await fetch(`http://127.0.0.1:${port}/v1/health`);
      expect(health.status).toBe(200);
      const apiText = await (await fetch(`http://127.0.0.1:${apiMetricsPort}/metrics`)).text();
      expect(apiText).toMatch(/http_requests_total\{route="health",method="GET",status="200"\} 1/);
      const publicMetrics = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(publicMetrics.status).toBe(404);
      expect(((await publicMetrics.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');

      // The sandbox it started takes the control token it printed, and nothing else.
      const token = /Authorization: Bearer (\S+)\)/.exec(output)?.[1];
      expect(token).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{32}$/));
      expect((await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/records`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/records`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      dev.kill('SIGINT');
      const timer = setTimeout(() => dev.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('an API process with API_METRICS_PORT serves /metrics there and not on its public port', async () => {
    const apiMetricsPort = await freePort();
    const { process: own, url } = await startApiProcess('api-metrics-port', { API_METRICS_PORT: String(apiMetricsPort) });
    try {
      expect((await fetch(`${url}/v1/health`)).status).toBe(200);
      const publicMetrics = await fetch(`${url}/metrics`);
      expect(publicMetrics.status).toBe(404);
      const scraped = await fetch(`http://127.0.0.1:${apiMetricsPort}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/http_requests_total\{route="health",method="GET",status="200"\} 1/);
      // Only GET /metrics there: it is no second way into the API.
      expect((await fetch(`http://127.0.0.1:${apiMetricsPort}/v1/health`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${apiMetricsPort}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await own.stop();
    }
  });
});
