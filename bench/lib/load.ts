// Load runs, with vegeta (a Go HTTP load generator) in a process of its own, so that neither the
// harness's event loop nor its heap (a million seeded rows) adds to the figures: the in-process
// Node generator this replaces measured a warm GET at p50 2.9 / p99 10.3 ms where vegeta measures
// 1.5-1.6 / 2.6-3.5 ms (bench/NOTES.md, the load generator and measurement method).
// Paced steps are open-loop: requests go out at fixed intervals (1/rate) whatever the answers do,
// and each latency counts from the request's planned send time, so a generator that falls behind
// shows in the latency instead of lowering the rate (no coordinated omission). Saturation steps
// keep a fixed number of requests in flight, back to back. Latencies are 2xx only; percentiles
// are exact (nearest rank).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { goInstall, toolCacheDir } from '../../scripts/lib/go-tools';

export const VEGETA_VERSION = 'v12.13.0';

let vegetaBinary: string | null = null;
/** The vegeta binary, built with Go on first use (seconds). */
export function loadGenerator(log: (line: string) => void = console.log): string {
  vegetaBinary ??= goInstall(toolCacheDir(`vegeta-${VEGETA_VERSION}`), [`github.com/tsenart/vegeta/v12@${VEGETA_VERSION}`], ['vegeta'], log)[0]!;
  return vegetaBinary;
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
  /** Paced: requests in flight at most (more wait, late); saturation: requests always in flight. */
  connections: number;
  timeoutSeconds?: number;
  /** Builds each request (unique Idempotency-Key, next id, ...). */
  next: () => RequestSpec;
  /**
   * Requests may repeat (reads): a saturation step then cycles through a bounded set. Otherwise
   * every request is built ahead, and a saturation step that would need more than `maxRate` per
   * second of them fails rather than send one twice.
   */
  repeatable?: boolean;
  /** Saturation steps of unrepeatable requests: the most per second that can be answered (default 500). */
  maxRate?: number;
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
  /** Runs of the earlier in-process generator only: stopped before every request was answered. */
  cutOff?: boolean;
  elapsedSeconds: number;
  /**
   * Paced steps: how late the generator sent each request after its planned time (all workers
   * busy, or its own scheduling). Latency counts from the planned time, so this much of a latency
   * figure the service never saw.
   */
  sendLateness?: LatencyStats;
}

export function latencyStats(values: number[]): LatencyStats {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN);
  const sum = values.reduce((a, b) => a + b, 0);
  return { count: sorted.length, p50: at(50), p95: at(95), p99: at(99), max: sorted.length ? sorted[sorted.length - 1]! : NaN, mean: sorted.length ? sum / sorted.length : NaN };
}

/** Reads repeat through at most this many distinct requests in a saturation step. */
const REPEATABLE_TARGETS = 20_000;

/** A load step with its requests written out, ready to run (building them costs the harness, not the step). */
export interface PreparedLoad {
  /** Runs the load; resolves when the generator is done, with the parse of its results still to do. */
  run(): Promise<{ result(): Promise<LoadResult> }>;
}

export function prepareLoad(spec: LoadSpec): PreparedLoad {
  const vegeta = loadGenerator();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-'));
  const targetsFile = path.join(dir, 'targets.jsonl');
  const resultsFile = path.join(dir, 'results.bin');
  const paced = spec.rate !== null;
  const requests = paced
    ? Math.max(1, Math.round(spec.rate! * spec.durationSeconds))
    : spec.repeatable ? REPEATABLE_TARGETS : Math.ceil((spec.maxRate ?? 500) * spec.durationSeconds);
  const lines: string[] = [];
  for (let i = 0; i < requests; i += 1) {
    const r = spec.next();
    lines.push(JSON.stringify({
      method: r.method,
      url: `${spec.baseUrl}${r.path}`,
      header: Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k, [v]])),
      ...(r.body !== undefined ? { body: Buffer.from(r.body).toString('base64') } : {}),
    }));
  }
  fs.writeFileSync(targetsFile, `${lines.join('\n')}\n`);
  const args = [
    'attack', '-format=json', `-targets=${targetsFile}`, `-output=${resultsFile}`, `-duration=${spec.durationSeconds}s`,
    `-timeout=${spec.timeoutSeconds ?? 30}s`, '-keepalive=true', '-redirects=-1', `-max-body=${spec.onAnswer ? -1 : 0}`,
    ...(paced
      ? [`-rate=${spec.rate}/1s`, `-workers=${Math.min(spec.connections, 32)}`, `-max-workers=${spec.connections}`]
      : ['-rate=0', `-workers=${spec.connections}`, `-max-workers=${spec.connections}`]),
  ];
  return {
    async run() {
      const started = process.hrtime.bigint();
      await new Promise<void>((resolve, reject) => {
        const child = spawn(vegeta, args, { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vegeta attack exited ${code}: ${stderr.trim()}`))));
      }).catch((error: unknown) => {
        fs.rmSync(dir, { recursive: true, force: true });
        throw error;
      });
      const elapsedSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      return {
        result: async () => {
          try {
            // BENCH_TRACE_DIR=dir keeps every request's result (`vegeta encode` reads them).
            if (process.env.BENCH_TRACE_DIR) {
              fs.mkdirSync(process.env.BENCH_TRACE_DIR, { recursive: true });
              fs.copyFileSync(resultsFile, path.join(process.env.BENCH_TRACE_DIR, `${spec.name.replace(/[^a-z0-9]+/gi, '-')}-${Date.now()}.bin`));
            }
            return await readResults(spec, vegeta, resultsFile, requests, elapsedSeconds);
          } finally {
            fs.rmSync(dir, { recursive: true, force: true });
          }
        },
      };
    },
  };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return (await prepareLoad(spec).run()).result();
}

/** One request as `vegeta encode -to json` prints it (latency in nanoseconds, body in base64). */
export interface VegetaResult { seq: number; code: number; timestamp: string; latency: number; error: string; body?: string }

/** RFC 3339 with nanoseconds (vegeta's timestamps) to epoch milliseconds, sub-millisecond kept. */
export function epochMs(timestamp: string): number {
  const match = /^(.{19})(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(timestamp);
  if (!match) return Date.parse(timestamp);
  return Date.parse(`${match[1]}${match[3]}`) + (match[2] ? Number(`0.${match[2]}`) * 1000 : 0);
}

async function readResults(spec: LoadSpec, vegeta: string, resultsFile: string, targets: number, elapsedSeconds: number): Promise<LoadResult> {
  const encode = spawn(vegeta, ['encode', '-to', 'json', resultsFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => encode.on('exit', resolve));
  const results: VegetaResult[] = [];
  for await (const line of readline.createInterface({ input: encode.stdout! })) if (line) results.push(JSON.parse(line) as VegetaResult);
  if ((await exited) !== 0) throw new Error('vegeta encode failed');
  if (!spec.repeatable && results.length > targets) {
    throw new Error(`${results.length} requests needed but ${targets} were built: raise maxRate so that no request is sent twice`);
  }
  return summarize(spec, results, elapsedSeconds);
}

/**
 * The step's figures from every request's result. Paced: the first request went out at the
 * planned start, request n is planned n/rate later, and its latency counts from then.
 */
export function summarize(spec: Omit<LoadSpec, 'next' | 'baseUrl'>, unordered: VegetaResult[], elapsedSeconds: number): LoadResult {
  const results = unordered.slice().sort((a, b) => a.seq - b.seq);
  const paced = spec.rate !== null;
  const startMs = results.length ? epochMs(results[0]!.timestamp) : 0;
  const latencies: number[] = [];
  const sendLateness: number[] = [];
  const statusCodes: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  let lastAnswerMs = startMs;
  for (const r of results) {
    const sentMs = epochMs(r.timestamp);
    const tookMs = r.latency / 1e6;
    lastAnswerMs = Math.max(lastAnswerMs, sentMs + tookMs);
    const lateMs = paced ? Math.max(0, sentMs - (startMs + (r.seq * 1000) / spec.rate!)) : 0;
    if (paced) sendLateness.push(lateMs);
    if (r.code === 0) {
      if (/timeout|deadline/i.test(r.error)) timeouts += 1;
      else errors += 1;
      continue;
    }
    statusCodes[r.code] = (statusCodes[r.code] ?? 0) + 1;
    if (r.code >= 200 && r.code < 300) latencies.push(lateMs + tookMs);
    spec.onAnswer?.(r.code, r.body ? Buffer.from(r.body, 'base64').toString('utf8') : '', sentMs + tookMs);
  }
  const stats = latencyStats(latencies);
  const ok = latencies.length;
  const total = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  // Achieved rate over the sending window plus the tail of the last answers.
  const throughput = ok / Math.max(spec.durationSeconds, (lastAnswerMs - startMs) / 1000);
  return {
    name: spec.name,
    targetRate: spec.rate,
    connections: spec.connections,
    durationSeconds: spec.durationSeconds,
    ...stats,
    throughput,
    ok,
    non2xx: total - ok,
    errors,
    timeouts,
    statusCodes,
    saturated: paced && throughput < spec.rate! * 0.9,
    elapsedSeconds,
    ...(paced ? { sendLateness: latencyStats(sendLateness) } : {}),
  };
}
