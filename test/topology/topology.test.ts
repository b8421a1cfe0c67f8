// The production topology (docker-compose.yml) run as local processes by `npm run topology`'s code:
// two API replicas behind haproxy, two workers, the real Temporal server on PostgreSQL, MariaDB.
// CONTRACT section 16: the environment each process gets is compose's; same-key creates and
// refunds raced across replicas; one API key's rate limit is one limit across the replicas (Redis):
// hit through both replicas at once, they let through no more than one bucket allows and both
// refuse with 429 and Retry-After; kill -9 of an API, of a worker and of the Temporal server (the
// APIs and workers reconnect on their own, no worker exits), then a rolling restart of every API
// and worker, under load: a client retrying as interface 7.2 says gets a final 2xx for every
// request, nothing is duplicated, and the acquirer's records = the database's = Temporal's.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import mysql from 'mysql2/promise';
import { PROJECT_ROOT, loadConfig } from '../../src/config';
import { isListening, waitForPort } from '../../src/temporal/dev-server';
import { untilTemporalServes } from '../../src/temporal/serving';
import { eventually } from '../helpers/eventually';
import { COMPOSE_FILE, MACHINE, TOPOLOGY_PORTS, loadCompose, localEnvironment, serviceEnvironment, temporalServerPorts } from '../../scripts/topology/compose';
import { LOG_DIR, TOPOLOGY_DIR, baseEnvironment, localHaproxyConfig, startTopology, type LocalProcess, type Topology } from '../../scripts/topology/run';

jest.setTimeout(600_000);

let topology: Topology;
let merchantId: string;
let apiKey: string;
/** Every Payment this file created: the database, the acquirer and Temporal must hold exactly these. */
const created = new Set<string>();

/**
 * What Temporal's PostgreSQL holds (docs/deployment.md, "Sizing"): bytes on disk of the main and
 * visibility databases, and the logical bytes and rows of the tables a workflow writes.
 */
function temporalStorage(): Record<string, number> {
  const { host, port, user } = MACHINE.postgres;
  const psql = (database: string, sql: string) => Number(execFileSync('psql', ['-h', host, '-p', String(port), '-U', user, '-d', database, '-tAc', sql], { encoding: 'utf8' }).trim());
  const main = MACHINE.temporalDatabases.main;
  const out: Record<string, number> = {
    mainDatabaseBytes: psql(main, 'SELECT pg_database_size(current_database())'),
    visibilityDatabaseBytes: psql(MACHINE.temporalDatabases.visibility, 'SELECT pg_database_size(current_database())'),
  };
  for (const table of ['executions', 'history_node', 'history_tree', 'current_executions', 'timer_tasks', 'activity_info_maps', 'timer_info_maps']) {
    out[`${table}Rows`] = psql(main, `SELECT count(*) FROM ${table}`);
    out[`${table}Bytes`] = psql(main, `SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM ${table} t`);
  }
  out.executionsVisibilityBytes = psql(MACHINE.temporalDatabases.visibility, 'SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM executions_visibility t');
  return out;
}
let storageBefore: Record<string, number>;

/** A merchant made by the operator command, as compose's API environment runs it. */
function createMerchant(name: string): { merchant_id: string; test_key: string } {
  const admin = execFileSync(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['src/admin/cli.ts', 'merchant', 'create', '--name', name, '--json'], {
    cwd: PROJECT_ROOT, env: topology.processes.get('api-1')!.env, encoding: 'utf8',
  });
  return JSON.parse(admin) as { merchant_id: string; test_key: string };
}

beforeAll(async () => {
  topology = await startTopology(() => {});
  const merchant = createMerchant('Topology Shop');
  merchantId = merchant.merchant_id;
  apiKey = merchant.test_key;
  storageBefore = temporalStorage();
}, 400_000);

afterAll(async () => {
  await topology?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  json: any;
  attempts: number;
}

/** Every answer a retrying client retried, and when: what clients saw while something was down. */
const retried: Array<{ at: number; what: string }> = [];

/**
 * A merchant's client as interface 7.2 says: the same Idempotency-Key on every attempt; network
 * errors, 409 idempotency_key_in_use, 429 and 5xx are retried after Retry-After (else backoff).
 */
async function retrying(base: string, method: string, urlPath: string, body: unknown, idempotencyKey: string, budgetMs = 120_000): Promise<Answer> {
  const deadline = Date.now() + budgetMs;
  for (let attempt = 1; ; attempt += 1) {
    let wait = Math.min(8000, 250 * 2 ** Math.min(attempt, 5));
    try {
      const res = await fetch(`${base}${urlPath}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(45_000),
      });
      const text = await res.text();
      let json: any = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        // Not the API's answer (a balancer's own error page): retried, and told apart below.
        retried.push({ at: Date.now(), what: `${res.status} not JSON${res.headers.get('retry-after') === null ? ' without Retry-After' : ''}` });
        throw new Error(`${res.status}: not JSON`);
      }
      const retryable = res.status === 429 || res.status >= 500 || (res.status === 409 && json?.error?.code === 'idempotency_key_in_use');
      if (!retryable) return { status: res.status, json, attempts: attempt };
      const retryAfter = res.headers.get('retry-after');
      retried.push({ at: Date.now(), what: `${res.status} ${json?.error?.code ?? ''}${retryAfter === null ? ' without Retry-After' : ''}`.trim() });
      const after = Number(retryAfter);
      if (Number.isFinite(after) && after > 0) wait = after * 1000;
    } catch (error) {
      // connection refused or reset, timeout: same key again
      if (!(error as Error).message.endsWith('not JSON')) retried.push({ at: Date.now(), what: `error ${(error as Error).name}` });
    }
    if (Date.now() + wait > deadline) throw new Error(`${method} ${urlPath} (${idempotencyKey}): no final answer within ${budgetMs} ms`);
    await sleep(wait);
  }
}

function paymentBody(amount = 4999) {
  return {
    amount,
    currency: 'usd',
    payment_method_data: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123', holder_name: 'Ada Lovelace' } },
    customer_ip_address: '203.0.113.7',
    return_url: 'https://shop.example/return',
  };
}

const replica = (i: number) => `http://127.0.0.1:${TOPOLOGY_PORTS.api + i}`;

async function getPayment(id: string): Promise<any> {
  const res = await fetch(`${topology.url}/v1/payments/${id}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  return res.json();
}

/** Processes of a process group that still run (zombies waiting for their reaper do not). */
function livingInGroup(pgid: number): number {
  let n = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') n += 1;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

function environOf(proc: LocalProcess): Record<string, string> {
  const raw = fs.readFileSync(`/proc/${proc.pid}/environ`, 'utf8');
  return Object.fromEntries(raw.split('\0').filter(Boolean).map((entry) => {
    const i = entry.indexOf('=');
    return [entry.slice(0, i), entry.slice(i + 1)];
  }));
}

/** The settings the documented mapping may change (docs/deployment.md): addresses, ports, databases, mounted paths. */
const MAPPED = new Set([
  'DATABASE_URL', 'TEMPORAL_ADDRESS', 'SANDBOX_URL', 'PUBLIC_BASE_URL', 'INTERNAL_BASE_URL', 'REDIS_URL', 'SANDBOX_PUBLIC_URL', 'CODEC_CORS_ORIGINS',
  'PORT', 'API_METRICS_PORT', 'WORKER_METRICS_PORT', 'SANDBOX_PORT', 'CODEC_PORT',
  'POSTGRES_SEEDS', 'POSTGRES_USER', 'POSTGRES_PWD', 'DB_PORT', 'DBNAME', 'VISIBILITY_DBNAME', 'DYNAMIC_CONFIG_FILE_PATH',
  'SQL_HOST', 'SQL_PORT', 'SQL_USER', 'SQL_PASSWORD', 'SCHEMA_DIR',
]);

describe('the file an operator runs is the file CI runs', () => {
  it('every local process gets exactly the environment compose gives its service, after the documented mapping', () => {
    // Read afresh: what the processes got must follow the file as it is now.
    const compose = loadCompose(topology.vars, COMPOSE_FILE);
    const bin = path.join(TOPOLOGY_DIR, 'bin');
    const checked: string[] = [];
    for (const [name, proc] of topology.processes) {
      if (proc.service === 'api-lb') continue; // haproxy: its config file, compared below
      const replicaIndex = Number(/-(\d+)$/.exec(name)?.[1] ?? 1) - 1;
      const composed = serviceEnvironment(compose, proc.service);
      const local = localEnvironment(compose, proc.service, replicaIndex, { '/etc/temporal/schema': '' });
      const actual = environOf(proc);
      const { PATH: _path, HOME: _home, ...own } = actual;
      expect(actual.PATH).toBe(baseEnvironment(bin).PATH);
      const extra = proc.service === 'temporal' ? temporalServerPorts() : {};
      // Same keys as compose's (plus the Temporal server's ports, which compose leaves at their defaults).
      expect(Object.keys(own).sort()).toEqual([...Object.keys(composed), ...Object.keys(extra)].sort());
      for (const [key, value] of Object.entries(composed)) {
        if (MAPPED.has(key)) expect({ key, value: own[key] }).toEqual({ key, value: local[key] });
        else expect({ key, value: own[key] }).toEqual({ key, value });
      }
      checked.push(name);
    }
    expect(checked.sort()).toEqual(['api-1', 'api-2', 'codec-server', 'sandbox', 'temporal', 'worker-1', 'worker-2']);
  });

  it('the mapping sends compose addresses to the local ones and nothing else', () => {
    const compose = loadCompose(topology.vars, COMPOSE_FILE);
    const api = localEnvironment(compose, 'api', 1);
    expect(api).toMatchObject({
      DATABASE_URL: MACHINE.mariadbUrl, TEMPORAL_ADDRESS: `127.0.0.1:${TOPOLOGY_PORTS.temporal}`, SANDBOX_URL: `http://127.0.0.1:${TOPOLOGY_PORTS.sandbox}`,
      INTERNAL_BASE_URL: `http://127.0.0.1:${TOPOLOGY_PORTS.loadBalancer}`, PORT: String(TOPOLOGY_PORTS.api + 1), API_METRICS_PORT: String(TOPOLOGY_PORTS.apiMetrics + 1),
    });
    expect(localEnvironment(compose, 'temporal').DYNAMIC_CONFIG_FILE_PATH).toBe(path.join(PROJECT_ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml'));
    // A setting compose changes reaches the process: an edit that the local run ignored would fail above.
    const edited = { ...compose, services: { ...compose.services, api: { ...compose.services.api, environment: { ...compose.services.api!.environment, LOG_LEVEL: 'debug' } } } };
    expect(localEnvironment(edited, 'api').LOG_LEVEL).toBe('debug');
    expect(environOf(topology.processes.get('api-1')!).LOG_LEVEL).toBe(serviceEnvironment(compose, 'api').LOG_LEVEL);
  });

  it('haproxy runs the repository config, with only its bind and server lines local', () => {
    const source = fs.readFileSync(path.join(PROJECT_ROOT, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8');
    const local = fs.readFileSync(path.join(TOPOLOGY_DIR, 'haproxy.cfg'), 'utf8');
    expect(local).toBe(localHaproxyConfig(source, 2));
    const strip = (text: string) => text.split('\n').filter((l) => !/^\s*(bind|server|server-template|resolvers|nameserver|hold)\b/.test(l) && l.trim() !== '').join('\n');
    expect(strip(local)).toBe(strip(source));
    expect(local).toContain(`server api-2 127.0.0.1:${TOPOLOGY_PORTS.api + 1} check`);
  });
});

describe('races across the API replicas', () => {
  it('same-key creates make one Payment', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => retrying(replica(i % 2), 'POST', '/v1/payments', paymentBody(), key)));
    for (const answer of answers) expect([200, 201]).toContain(answer.status);
    const ids = new Set(answers.map((a) => a.json.id));
    expect(ids.size).toBe(1);
    created.add([...ids][0]);
  });

  it('refunds never exceed the balance', async () => {
    const payment = await retrying(topology.url, 'POST', '/v1/payments', paymentBody(1000), randomUUID());
    expect(payment.status).toBe(201);
    created.add(payment.json.id);
    const succeeded = await eventually(() => getPayment(payment.json.id), (p) => p.status === 'SUCCEEDED', 60_000);
    expect(succeeded.status).toBe('SUCCEEDED');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => retrying(replica(i % 2), 'POST', '/v1/refunds', { payment_id: payment.json.id, amount: 300, reason: 'raced refund' }, randomUUID())));
    const accepted = answers.filter((a) => a.status === 201 && a.json.status !== 'FAILED');
    for (const a of answers) if (a.status !== 201) expect(a.json.error.code).toBe('amount_exceeds_refundable');
    expect(accepted.length).toBeLessThanOrEqual(3);
    expect(accepted.length).toBeGreaterThan(0);
    const settled = await eventually(() => getPayment(payment.json.id), (p) => p.amount_refunded === accepted.length * 300, 60_000);
    expect(settled.amount_refunded).toBe(accepted.length * 300);
    expect(settled.amount_refunded + settled.amount_refundable).toBe(1000);
  });
});

describe('request limits across the API replicas', () => {
  it("one key's rate limit is one bucket in Redis, whichever replica counts", async () => {
    // The limits the replicas run with: compose's environment as each API parses it (unset ones are
    // the defaults), read from the processes rather than written down here.
    const env = topology.processes.get('api-1')!.env;
    expect(env.REDIS_URL).toBeTruthy();
    const config = loadConfig(env);
    const other = loadConfig(topology.processes.get('api-2')!.env);
    expect([other.redisUrl, other.redisKeyPrefix, other.rateLimitPerSecond, other.rateLimitBurst]).toEqual([config.redisUrl, config.redisKeyPrefix, config.rateLimitPerSecond, config.rateLimitBurst]);
    const rate = config.rateLimitPerSecond;
    const burst = config.rateLimitBurst;
    // The per-address limit (RATE_LIMIT_PER_ADDRESS_PER_SECOND, RATE_LIMIT_ADDRESS_BURST) is larger
    // than the key's but would still refuse a single address at this pace, and its refusals come
    // before the key is counted. The requests therefore come as the balancer passes them on
    // (X-Forwarded-For, which TRUST_PROXY=1 makes the API take) from many client addresses, each
    // far below that limit: every refusal is the key's, and the test checks the message says so.
    expect(config.trustProxy).toBe(true);
    expect(config.rateLimitPerAddressPerSecond).toBeGreaterThan(rate);
    const addresses = 200;
    // Both replicas' count of checks Redis did not answer in time (their metrics listeners).
    const metricsPorts = [config.apiMetricsPort, other.apiMetricsPort];
    const storeFallbacks = async () => {
      let total = 0;
      for (const port of metricsPorts) {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const count = /^rate_limit_store_fallbacks_total(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
        if (count === undefined) throw new Error(`no rate_limit_store_fallbacks_total on metrics port ${port}`);
        total += Number(count);
      }
      return total;
    };
    // What one bucket lets through in `elapsedSeconds`: the token bucket (burst, then `rate` a
    // second) as request-limits.ts counts it in fixed windows, `rate` per 1 s window plus
    // `burst - rate` per window of ceil(burst / rate) s, the first windows opening at the first
    // request. Within the first burst window that is at most burst + rate x elapsed; 2% more is
    // tolerated.
    const burstWindow = Math.max(1, Math.ceil(burst / rate));
    const oneBucket = (elapsedSeconds: number) => {
      const allowed = rate * (Math.floor(elapsedSeconds) + 1) + (burst - rate) * (Math.floor(elapsedSeconds / burstWindow) + 1);
      return allowed + Math.ceil(allowed * 0.02);
    };
    // A replica counting on its own refuses only after letting a whole burst through, so two that
    // both refused let through at least 2 x burst: a wave tells one bucket from two only if it is
    // over while one bucket allows less than that. And only if Redis counted every request: a
    // check Redis does not answer in REDIS_COMMAND_TIMEOUT_MS is counted in its process instead
    // (rate_limit_store_fallbacks_total), and a CI run's wave once let 322 through so.
    const decides = (w: { elapsedSeconds: number; fallbacks: number }) => w.fallbacks === 0 && oneBucket(w.elapsedSeconds) < 2 * burst;
    // Each replica gets, all at once, more requests than one bucket lets through in the slowest wave
    // that decides: under one bucket each must then refuse some, whichever order they reach Redis
    // in. (A stream bound by time instead sent too few on a loaded CI for both replicas to refuse.)
    // No more than that, for the wave to be over soon.
    let slowest = 0; // the last whole second a deciding wave may end in (one bucket's steps are whole seconds)
    while (decides({ elapsedSeconds: slowest + 1, fallbacks: 0 })) slowest += 1;
    const perReplica = oneBucket(slowest) + 1;

    interface Sent { replica: number; status: number; code?: string; message?: string; retryAfter: string | null }
    // Cheap authenticated requests to each replica directly (not through haproxy), interleaved.
    const wave = async (key: string) => {
      const send = async (i: number): Promise<Sent> => {
        const target = i % 2;
        const res = await fetch(`${replica(target)}/v1/events?limit=1`, {
          headers: { Authorization: `Bearer ${key}`, 'X-Forwarded-For': `198.51.100.${(i % addresses) + 1}` },
          signal: AbortSignal.timeout(20_000),
        });
        const json = (await res.json()) as { error?: { code?: string; message?: string } };
        return { replica: target, status: res.status, code: json.error?.code, message: json.error?.message, retryAfter: res.headers.get('retry-after') };
      };
      const fallbacksBefore = await storeFallbacks();
      const start = Date.now();
      // One request to each replica first: once a replica knows the key it counts the rest before
      // their database lookup, and the wave is over sooner (a wave of lookups took 1.8 s).
      const first = await Promise.all([send(0), send(1)]);
      const rest = await Promise.all(Array.from({ length: 2 * perReplica - 2 }, (_, i) => send(i + 2)));
      const elapsedSeconds = (Date.now() - start) / 1000;
      return { sent: [...first, ...rest], elapsedSeconds, fallbacks: (await storeFallbacks()) - fallbacksBefore };
    };
    // A key of its own per wave: no other request counts in its bucket. A wave too slow to decide
    // (a loaded machine: in a clean-clone CI the first took 3.3 s, the next 1.2 s) is sent again;
    // five that all are fail the test.
    const waves: Array<Awaited<ReturnType<typeof wave>>> = [];
    while (waves.length < 5 && !waves.some(decides)) {
      waves.push(await wave(createMerchant('Rate Limit Shop').test_key));
    }
    const last = waves[waves.length - 1]!;
    const { sent, elapsedSeconds } = last;
    const ok = sent.filter((s) => s.status >= 200 && s.status < 300);
    const refused = sent.filter((s) => s.status === 429);
    process.stderr.write(`rate limit: waves of ${sent.length} requests in ${waves.map((w) => `${w.elapsedSeconds.toFixed(2)} s (${w.fallbacks} counted in a process)`).join(', ')}; last: ${ok.length} 2xx (one bucket: ${oneBucket(elapsedSeconds)}), 429 per replica ${[0, 1].map((i) => refused.filter((r) => r.replica === i).length).join('/')}\n`);
    expect(decides(last)).toBe(true);

    // Nothing else: every answer is a 2xx or the key's 429.
    expect(sent.filter((s) => !(s.status >= 200 && s.status < 300) && s.status !== 429)).toEqual([]);
    for (const r of refused) {
      expect(r.code).toBe('rate_limit_exceeded');
      expect(r.message).toMatch(/API key/);
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // Both replicas refused: each found the key's bucket empty.
    expect([0, 1].map((i) => refused.filter((r) => r.replica === i).length).every((count) => count > 0)).toBe(true);
    // And together they let through no more than one bucket.
    expect(ok.length).toBeLessThanOrEqual(oneBucket(elapsedSeconds));
  });
});

describe('faults and a rolling restart under load', () => {
  it('every request gets a final 2xx, nothing is duplicated, and acquirer = database = Temporal', async () => {
    const results: Array<{ key: string; answer?: Answer; error?: string; from: number; to: number }> = [];
    const temporalDown = { from: 0, started: 0, listening: 0, until: 0, workersHealthy: 0 };
    let loading = true;
    const client = async () => {
      while (loading) {
        const key = randomUUID();
        const from = Date.now();
        try {
          const answer = await retrying(topology.url, 'POST', '/v1/payments', paymentBody(), key);
          results.push({ key, answer, from, to: Date.now() });
        } catch (error) {
          results.push({ key, error: String(error), from, to: Date.now() });
        }
      }
    };
    const clients = Array.from({ length: 4 }, () => client());
    try {
      const p = (name: string) => topology.processes.get(name)!;
      const killed = (name: string) => {
        const pid = p(name).pid!;
        p(name).kill('SIGKILL');
        return pid;
      };
      const gone = async (pid: number) => {
        // Nothing of the service survives (a launcher's child holding the port would fake the restart).
        const alive = await eventually(async () => livingInGroup(pid), (n) => n === 0, 5000);
        expect(alive).toBe(0);
      };
      await sleep(3000);
      await gone(killed('api-1'));
      p('api-1').start();
      await p('api-1').waitHealthy();
      await sleep(3000);
      await gone(killed('worker-1'));
      p('worker-1').start();
      await p('worker-1').waitHealthy();
      await sleep(3000);
      // kill -9 of the Temporal server (its PostgreSQL keeps everything), left down for longer than
      // a create waits for its workflow (so creates meanwhile answer 503 with Retry-After and the
      // workers' polls fail throughout), then started again. The APIs and workers are not touched:
      // they reconnect on their own, the workers without exiting.
      const outageMs = loadConfig(p('api-1').env).workflowUpdateTimeoutMs + 5000;
      const workerPids = ['worker-1', 'worker-2'].map((name) => p(name).pid);
      temporalDown.from = Date.now();
      await gone(killed('temporal'));
      // The port closes with the last of its threads, which can outlive the process's first one.
      expect(await eventually(() => isListening(TOPOLOGY_PORTS.temporal), (open) => !open, 10_000)).toBe(false);
      await sleep(outageMs - (Date.now() - temporalDown.from));
      p('temporal').start();
      temporalDown.started = Date.now();
      await waitForPort(TOPOLOGY_PORTS.temporal, '127.0.0.1', 120_000);
      temporalDown.listening = Date.now();
      // Serving, not only listening: the namespace answers.
      await untilTemporalServes(topology.temporalAddress);
      temporalDown.until = Date.now();
      for (const name of ['worker-1', 'worker-2']) {
        // Polling again: /health says both its checks are ok and it polls.
        const health = await eventually(
          () => fetch(p(name).healthUrl!, { signal: AbortSignal.timeout(2000) }).then(async (res) => ({ httpStatus: res.status, ...((await res.json()) as object) }), (error: unknown) => ({ httpStatus: 0, error: String(error) })),
          (h: any) => h.httpStatus === 200 && h.polling === true,
          60_000,
        );
        expect({ name, health }).toMatchObject({ name, health: { httpStatus: 200, polling: true } });
      }
      temporalDown.workersHealthy = Date.now();
      expect(['worker-1', 'worker-2'].map((name) => p(name).running && p(name).pid)).toEqual(workerPids);
      await sleep(3000);
      // A deploy: every API and worker replaced one at a time (SIGTERM, wait, start, healthy).
      for (const name of ['api-1', 'api-2', 'worker-1', 'worker-2']) {
        await p(name).restart();
        await sleep(2000);
      }
    } finally {
      loading = false;
      await Promise.all(clients);
    }

    const failures = results.filter((r) => r.error !== undefined || r.answer!.status !== 201);
    expect(failures).toEqual([]);
    const ids = results.map((r) => r.answer!.json.id as string);
    expect(new Set(ids).size).toBe(results.length);
    expect(results.length).toBeGreaterThan(20);
    for (const id of ids) created.add(id);

    // The database.
    const db = await mysql.createConnection(MACHINE.mariadbUrl);
    try {
      const [rows] = await db.query('SELECT id FROM payments WHERE merchant_id = ?', [merchantId]);
      expect((rows as Array<{ id: string }>).map((r) => r.id).sort()).toEqual([...created].sort());
    } finally {
      await db.end();
    }
    // The acquirer: one authorization per Payment.
    for (const id of created) {
      const res = await fetch(`${topology.sandboxUrl}/_sandbox/records?reference=${id}`, { headers: { Authorization: `Bearer ${topology.vars.SANDBOX_CONTROL_TOKEN}` } });
      const records = (await res.json()) as { authorizations: unknown[] };
      expect({ id, authorizations: records.authorizations.length }).toEqual({ id, authorizations: 1 });
    }
    // Temporal: one running PaymentWorkflow per Payment (visibility catches up within seconds).
    const connection = await Connection.connect({ address: topology.temporalAddress });
    try {
      const temporal = new Client({ connection, namespace: 'default' });
      const query = `MerchantId = '${merchantId}' AND ObjectType = 'payment' AND ExecutionStatus = 'Running'`;
      const count = await eventually(() => temporal.workflow.count(query).then((c) => c.count), (n) => n === created.size, 30_000);
      expect(count).toBe(created.size);
      // The ids themselves (read raw: payloads are encrypted and this client has no codec).
      const ids: string[] = [];
      let nextPageToken: Uint8Array | undefined;
      do {
        const page = await connection.workflowService.listWorkflowExecutions({ namespace: 'default', query, pageSize: 1000, nextPageToken });
        for (const e of page.executions) ids.push(e.execution!.workflowId!);
        nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
      } while (nextPageToken);
      expect(ids.sort()).toEqual([...created].sort());
    } finally {
      await connection.close();
    }
    const storageAfter = temporalStorage();
    const perPayment = Object.fromEntries(Object.keys(storageAfter).map((k) => [k, Math.round((storageAfter[k]! - storageBefore[k]!) / created.size)]));
    // What the clients saw while Temporal was down: retried answers by kind, and the requests that
    // were open then (each ended with a 201 above).
    const during = retried.filter((r) => r.at >= temporalDown.from && r.at <= temporalDown.workersHealthy);
    const seen: Record<string, number> = {};
    for (const r of during) seen[r.what] = (seen[r.what] ?? 0) + 1;
    const spanning = results.filter((r) => r.from <= temporalDown.until && r.to >= temporalDown.from);
    const temporalOutage = {
      downMs: temporalDown.until - temporalDown.from, startedAfterMs: temporalDown.started - temporalDown.from, listeningAfterMs: temporalDown.listening - temporalDown.from,
      workersPollingAfterMs: temporalDown.workersHealthy - temporalDown.from, retriedAnswers: seen,
      requestsOpen: spanning.length, longestOpenRequestMs: Math.max(0, ...spanning.map((r) => r.to - r.from)), maxAttemptsOfThose: Math.max(0, ...spanning.map((r) => r.answer!.attempts)),
    };
    // What the clients got meanwhile was the API's own answer, a 503 with Retry-After (CONTRACT 16),
    // not the balancer's: the APIs stayed in rotation (deploy/haproxy/haproxy.cfg).
    expect(Object.keys(seen).filter((what) => what.endsWith('without Retry-After') || what.includes('not JSON'))).toEqual([]);
    process.stderr.write(`load: ${results.length} requests; Temporal outage: ${JSON.stringify(temporalOutage)}\n`);
    fs.writeFileSync(path.join(LOG_DIR, 'load-summary.json'), JSON.stringify({
      requests: results.length, payments: created.size, maxAttempts: Math.max(...results.map((r) => r.answer!.attempts)), temporalOutage, storageBefore, storageAfter, perPayment,
    }, null, 2));
  });
});
