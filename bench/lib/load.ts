// Load runs. Paced steps are open-loop: requests go out at exact intervals (1/rate) whatever the
// answers do, over a keep-alive pool, and each latency is measured from the request's planned send
// time, so a service (or pool) falling behind shows in the latency instead of lowering the rate
// (no coordinated omission). autocannon's own pacing sends per-connection bursts once a second,
// which is why it is only used for saturation: a fixed number of connections sending back to
// back. Latencies are 2xx only; percentiles are exact (nearest rank).
import http from 'node:http';
import { performance } from 'node:perf_hooks';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: Record<string, unknown>) => AutocannonInstance;

interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): void;
  on(event: 'reqError', listener: (error: Error) => void): void;
  then: Promise<AutocannonResult>['then'];
  stop(): void;
}

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadSpec {
  name: string;
  baseUrl: string;
  /** Requests per second for a paced run; null for saturation (back to back on every connection). */
  rate: number | null;
  durationSeconds: number;
  connections: number;
  timeoutSeconds?: number;
  /** Builds each request (unique Idempotency-Key, next id, ...). */
  next: () => RequestSpec;
  /** Sees each answer with the time it arrived (e.g. ids of created objects). */
  onAnswer?: (status: number, body: string, arrivedAtMs: number) => void;
}

export interface LatencyStats {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export interface LoadResult extends LatencyStats {
  name: string;
  targetRate: number | null;
  connections: number;
  durationSeconds: number;
  /** 2xx answers per second. */
  throughput: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** A paced run that could not keep its rate (the service or the connections could not keep up). */
  saturated: boolean;
  /** Stopped before every request was answered (3 x the duration + 30 s). */
  cutOff: boolean;
  elapsedSeconds: number;
}

export function latencyStats(values: number[]): LatencyStats {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN);
  const sum = values.reduce((a, b) => a + b, 0);
  return { count: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: sorted.length ? sorted[sorted.length - 1]! : NaN, mean: sorted.length ? sum / sorted.length : NaN };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return spec.rate !== null ? runPaced(spec, spec.rate) : runSaturation(spec);
}

interface Outcome {
  latencies: number[];
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  elapsedSeconds: number;
  cutOff: boolean;
}

function result(spec: LoadSpec, o: Outcome, window: number): LoadResult {
  const stats = latencyStats(o.latencies);
  const ok = o.latencies.length;
  const total = Object.values(o.statusCodes).reduce((a, b) => a + b, 0);
  const throughput = ok / window;
  return {
    name: spec.name,
    targetRate: spec.rate,
    connections: spec.connections,
    durationSeconds: spec.durationSeconds,
    ...stats,
    throughput,
    ok,
    non2xx: total - ok,
    errors: o.errors,
    timeouts: o.timeouts,
    statusCodes: o.statusCodes,
    saturated: spec.rate !== null && (o.cutOff || throughput < spec.rate * 0.9),
    cutOff: o.cutOff,
    elapsedSeconds: o.elapsedSeconds,
  };
}

/** Open loop: rate x duration requests at exact intervals; waits for every answer (or the cut-off). */
async function runPaced(spec: LoadSpec, rate: number): Promise<LoadResult> {
  const url = new URL(spec.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections, maxFreeSockets: spec.connections });
  const total = Math.max(1, Math.round(rate * spec.durationSeconds));
  const intervalMs = 1000 / rate;
  const o: Outcome = { latencies: [], statusCodes: {}, errors: 0, timeouts: 0, elapsedSeconds: 0, cutOff: false };
  const timeoutMs = (spec.timeoutSeconds ?? 30) * 1000;
  let pending = 0;
  let lastAnswerAt = 0;
  const start = performance.now();
  let allDone: () => void = () => {};
  const done = new Promise<void>((resolve) => { allDone = resolve; });
  let sent = 0;
  const fire = (plannedAt: number) => {
    const next = spec.next();
    pending += 1;
    const finish = () => {
      pending -= 1;
      lastAnswerAt = performance.now();
      if (sent === total && pending === 0) allDone();
    };
    const req = http.request({
      agent, host: url.hostname, port: url.port, method: next.method, path: next.path,
      headers: { ...(next.headers ?? {}), ...(next.body !== undefined ? { 'Content-Length': Buffer.byteLength(next.body) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const latency = performance.now() - plannedAt;
        const status = res.statusCode ?? 0;
        o.statusCodes[status] = (o.statusCodes[status] ?? 0) + 1;
        if (status >= 200 && status < 300) o.latencies.push(latency);
        spec.onAnswer?.(status, Buffer.concat(chunks).toString('utf8'), Date.now());
        finish();
      });
      res.on('error', () => { o.errors += 1; finish(); });
    });
    req.setTimeout(timeoutMs, () => { o.timeouts += 1; req.destroy(new Error('timeout')); });
    req.on('error', () => { o.errors += 1; finish(); });
    req.end(next.body);
  };
  // The pacer: fires every request whose planned time has come, then sleeps until the next one.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + sent * intervalMs <= now) {
        fire(start + sent * intervalMs);
        sent += 1;
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * intervalMs - performance.now()));
      else resolve();
    };
    tick();
  });
  if (pending === 0) allDone();
  const limit = setTimeout(() => { o.cutOff = true; allDone(); }, (spec.durationSeconds * 2 + 30) * 1000);
  await done;
  clearTimeout(limit);
  agent.destroy();
  o.elapsedSeconds = (performance.now() - start) / 1000;
  // Achieved rate over the sending window plus the tail of the last answers.
  return result(spec, o, Math.max(spec.durationSeconds, ((lastAnswerAt || performance.now()) - start) / 1000));
}

/** Closed loop: `connections` requests in flight at all times for the duration (autocannon). */
async function runSaturation(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const startedAt = Date.now();
  const instance = autocannon({
    url: spec.baseUrl,
    connections: spec.connections,
    duration: spec.durationSeconds,
    timeout: spec.timeoutSeconds ?? 30,
    pipelining: 1,
    requests: [{
      setupRequest: (request: Record<string, unknown>) => {
        const next = spec.next();
        return { ...request, method: next.method, path: next.path, headers: { ...(next.headers ?? {}) }, body: next.body };
      },
      onResponse: spec.onAnswer ? (status: number, body: string) => spec.onAnswer!(status, body, Date.now()) : undefined,
    }],
  });
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
  });
  const finished = await new Promise<AutocannonResult>((resolve, reject) => instance.then(resolve, reject));
  const elapsedSeconds = (Date.now() - startedAt) / 1000;
  const statusCodes = Object.fromEntries(Object.entries(finished.statusCodeStats).map(([code, s]) => [code, s.count]));
  return result(spec, { latencies, statusCodes, errors: finished.errors, timeouts: finished.timeouts, elapsedSeconds, cutOff: false }, Math.max(spec.durationSeconds, elapsedSeconds));
}
