// Child processes of the test environment (sandbox, workers): started with tsx from the source, or compiled.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';

export const TEST_LOG_DIR = process.env.TEST_LOG_DIR ?? path.join(PROJECT_ROOT, '.data', 'test-logs');
/** Where each log file stood when its process was last spawned: readiness is only read after it. */
const logStarts = new Map<string, number>();

export interface ManagedProcess {
  child: ChildProcess;
  logFile: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A port nothing listens on now (the OS picks it; a caller binds it soon after). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Runs an entry point with only PATH, HOME and `env` (none of the suite's settings) until it exits:
 * for what a process does at start.
 */
export function runToExit(entry: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, entry), ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH!, HOME: os.homedir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${entry} did not exit: ${output}`)); }, 45_000);
    child.once('exit', (code) => { clearTimeout(timer); resolve({ code, output }); });
  });
}

/**
 * `inheritEnv: false` gives the process only `env`: what a freshly opened shell would give it,
 * with nothing of the test process's own settings (DATABASE_URL, VAULT_KEY, ...).
 */
export function spawnTs(name: string, entry: string, env: Record<string, string>, options: { inheritEnv?: boolean } = {}): ManagedProcess {
  // `node --import tsx` runs the entry in this one process (the tsx CLI would fork a child that a
  // SIGKILL of the launcher leaves running).
  return spawnNode(name, ['--import', 'tsx', path.join(PROJECT_ROOT, entry)], env, options);
}

/** A compiled entry point (`npm run build`: `dist/...js`) run with plain node, as production runs it. */
export function spawnCompiled(name: string, entry: string, env: Record<string, string>, options: { inheritEnv?: boolean } = {}): ManagedProcess {
  return spawnNode(name, [path.join(PROJECT_ROOT, entry)], env, options);
}

function spawnNode(name: string, args: string[], env: Record<string, string>, options: { inheritEnv?: boolean }): ManagedProcess {
  fs.mkdirSync(TEST_LOG_DIR, { recursive: true });
  const logFile = path.join(TEST_LOG_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  logStarts.set(logFile, fs.fstatSync(fd).size);
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, env: options.inheritEnv === false ? env : { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    logFile,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until `logFile` shows `text` (a process announcing it is ready) since its last spawn. */
export async function waitForLog(logFile: string, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const from = logStarts.get(logFile) ?? 0;
  while (Date.now() < deadline) {
    if (fs.existsSync(logFile) && fs.readFileSync(logFile).subarray(from).toString('utf8').includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for "${text}" in ${logFile}`);
}
