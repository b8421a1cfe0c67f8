// Child processes of the bench environment, run from source with `node --import tsx` (one process
// each, so stopping it stops everything it runs). Logs go to .data/bench/logs.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { nameProcess } from './cpu';

export const BENCH_DATA_DIR = path.join(PROJECT_ROOT, '.data', 'bench');
export const BENCH_LOG_DIR = path.join(BENCH_DATA_DIR, 'logs');

export interface BenchProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Moves the logs of the processes that just stopped into `logs/<server>/`, so the second Temporal
 * server's processes (same names) do not overwrite the first's: a step's anomaly can then still be
 * read in its own processes' logs after the run.
 */
export function keepLogs(server: string): void {
  if (!fs.existsSync(BENCH_LOG_DIR)) return;
  const dir = path.join(BENCH_LOG_DIR, server);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  for (const file of fs.readdirSync(BENCH_LOG_DIR)) {
    if (file.endsWith('.log')) fs.renameSync(path.join(BENCH_LOG_DIR, file), path.join(dir, file));
  }
}

export function spawnTs(name: string, entry: string, args: string[], env: Record<string, string>): BenchProcess {
  fs.mkdirSync(BENCH_LOG_DIR, { recursive: true });
  const logFile = path.join(BENCH_LOG_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'w');
  // BENCH_CPU_PROFILE_DIR=dir: each process writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROFILE_DIR, name)}`] : [];
  // V8's memory reducer shrinks an idle process's heap with a series of full collections (5-35 ms
  // each, about 0.6 s apart, with helper threads): on two shared cores, the idle neighbours of the
  // process being measured then take its CPU. BENCH_NODE_FLAGS="--trace-gc ..." adds flags (diagnostics).
  const flags = ['--no-memory-reducer', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...profile, ...flags, '--import', 'tsx', path.join(PROJECT_ROOT, entry), ...args], {
    cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  return managed(name, child, logFile);
}

export function managed(name: string, child: ChildProcess, logFile: string): BenchProcess {
  nameProcess(child.pid, name);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    name,
    child,
    logFile,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until the process's log shows `text`; fails early if the process exits. */
export async function waitForLog(proc: BenchProcess, text: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fs.existsSync(proc.logFile) && fs.readFileSync(proc.logFile, 'utf8').includes(text)) return;
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited (${proc.child.exitCode}); see ${proc.logFile}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for "${text}" from ${proc.name}; see ${proc.logFile}`);
}
