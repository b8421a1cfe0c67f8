// Load runs on autocannon: a fixed request rate (paced over many connections, so a slow answer does
// not hold back the next request as long as connections remain; `saturated` says when the rate was
// not reached) or saturation (a fixed number of connections sending back to back). Latencies are
// autocannon's per-response times, 2xx only, without its coordinated-omission correction (which
// adds synthetic samples at 1 ms intervals); percentiles are exact (nearest rank).
// autocannon ships no types; the few options used here are declared below.
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
  elapsedSeconds: number;
}

export function latencyStats(values: number[]): LatencyStats {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN);
  const sum = values.reduce((a, b) => a + b, 0);
  return { count: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: sorted.length ? sorted[sorted.length - 1]! : NaN, mean: sorted.length ? sum / sorted.length : NaN };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const startedAt = Date.now();
  // A paced step sends exactly rate x duration requests and waits for every answer, so slow answers
  // at the end are measured too; a saturation step runs for its duration.
  const amount = spec.rate !== null ? Math.max(1, Math.round(spec.rate * spec.durationSeconds)) : undefined;
  const instance = autocannon({
    url: spec.baseUrl,
    connections: spec.connections,
    ...(amount !== undefined ? { amount } : { duration: spec.durationSeconds }),
    timeout: spec.timeoutSeconds ?? 30,
    pipelining: 1,
    ...(spec.rate !== null ? { overallRate: spec.rate, ignoreCoordinatedOmission: true } : {}),
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
  const result = await new Promise<AutocannonResult>((resolve, reject) => instance.then(resolve, reject));
  const elapsed = Math.max((Date.now() - startedAt) / 1000, spec.durationSeconds);
  const stats = latencyStats(latencies);
  // Wall time includes draining the last answers: for a paced step subtract one median latency.
  const window = spec.rate !== null ? Math.max(spec.durationSeconds, elapsed - stats.p50 / 1000) : elapsed;
  const throughput = latencies.length / window;
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  return {
    name: spec.name,
    targetRate: spec.rate,
    connections: spec.connections,
    durationSeconds: spec.durationSeconds,
    ...stats,
    throughput,
    ok: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    saturated: spec.rate !== null && throughput < spec.rate * 0.9,
    elapsedSeconds: elapsed,
  };
}
