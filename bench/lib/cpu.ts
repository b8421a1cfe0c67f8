// CPU time by part of the system during a step, from /proc (user + system time of every thread):
// what one answered request costs the API, the worker, the Temporal server, MariaDB and the rest.
// Throughput on a machine this small is CPU, so this says where a request's cost is. A process
// counts under the name it was started with (and its descendants with it); MariaDB and PostgreSQL
// by their command names; the harness by its own pid, with the load generator it runs as a child
// process; anything else is "other" (the rest of the machine). Linux only: elsewhere the meter
// returns nothing.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

const names = new Map<number, string>();

/** Counts a started process (and its children) under `name`, e.g. `api`, `worker-0`, `temporal`. */
export function nameProcess(pid: number | undefined, name: string): void {
  if (pid !== undefined) names.set(pid, name);
}

interface Sample { ppid: number; comm: string; ticks: number }

let ticksPerSecond: number | null = null;
function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

function readAll(): Map<number, Sample> | null {
  if (!fs.existsSync('/proc/self/stat')) return null;
  const samples = new Map<number, Sample>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited between the listing and the read
    }
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    // Fields after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14). The
    // harness also counts its children that exited (the load generator runs a process per step).
    const children = Number(entry) === process.pid ? Number(fields[13]) + Number(fields[14]) : 0;
    samples.set(Number(entry), { ppid: Number(fields[1]), comm: text.slice(open + 1, close), ticks: Number(fields[11]) + Number(fields[12]) + children });
  }
  return samples;
}

function groupOf(pid: number, samples: Map<number, Sample>): string {
  if (pid === process.pid) return 'harness';
  for (let at: number | undefined = pid, hops = 0; at !== undefined && at > 1 && hops < 64; hops += 1) {
    const named = names.get(at);
    if (named) return named;
    at = samples.get(at)?.ppid;
  }
  const comm = samples.get(pid)!.comm;
  if (comm === 'mariadbd' || comm === 'mysqld') return 'mariadb';
  if (comm === 'postgres') return 'postgres';
  return 'other';
}

export interface CpuUse {
  /** CPU seconds by part over the step; `total` is their sum. */
  seconds: Record<string, number>;
  wallSeconds: number;
}

/** Starts metering; the returned function ends it. A process that exits during the step is missed. */
export function meterCpu(): () => CpuUse | null {
  const before = readAll();
  const startedAt = process.hrtime.bigint();
  return () => {
    const after = readAll();
    if (!before || !after) return null;
    const hz = clockTicks();
    const seconds: Record<string, number> = { total: 0 };
    for (const [pid, sample] of after) {
      const earlier = before.get(pid);
      // A pid seen in both samples with a different parent was reused: count it from zero.
      const delta = earlier && earlier.ppid === sample.ppid ? sample.ticks - earlier.ticks : sample.ticks;
      if (delta <= 0) continue;
      const group = groupOf(pid, after);
      seconds[group] = (seconds[group] ?? 0) + delta / hz;
      seconds.total! += delta / hz;
    }
    return { seconds, wallSeconds: Number(process.hrtime.bigint() - startedAt) / 1e9 };
  };
}

/** Busy cores of the bench's own processes (the harness and the rest of the machine left out). */
function serviceSeconds(use: CpuUse): number {
  return Object.entries(use.seconds).filter(([name]) => name !== 'total' && name !== 'harness' && name !== 'other').reduce((sum, [, v]) => sum + v, 0);
}

/**
 * Waits until the bench's processes are quiet (under `cores` busy for `quietMs`, in 500 ms windows,
 * at most `maxMs`): a step's requests leave work behind (projections, webhook deliveries, refund
 * workflows), which must not slow the next step down nor be charged to it. Returns the wait.
 */
export async function settle(options: { cores?: number; quietMs?: number; maxMs?: number } = {}): Promise<number> {
  const { cores = 0.15, quietMs = 1500, maxMs = 30_000 } = options;
  const started = Date.now();
  let quietSince: number | null = null;
  while (Date.now() - started < maxMs) {
    const end = meterCpu();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const use = end();
    if (!use) return 0; // not Linux: nothing to wait on
    const busy = serviceSeconds(use) / use.wallSeconds;
    if (busy >= cores) quietSince = null;
    else if (quietSince === null) quietSince = Date.now() - 500;
    if (quietSince !== null && Date.now() - quietSince >= quietMs) break;
  }
  return Date.now() - started;
}
