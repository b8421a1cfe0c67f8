// Child processes of the test environment (sandbox, workers), started with tsx from the source.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';

export const TEST_LOG_DIR = process.env.TEST_LOG_DIR ?? path.join(PROJECT_ROOT, '.data', 'test-logs');
const TSX = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');

export interface ManagedProcess {
  child: ChildProcess;
  logFile: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnTs(name: string, entry: string, env: Record<string, string>): ManagedProcess {
  fs.mkdirSync(TEST_LOG_DIR, { recursive: true });
  const logFile = path.join(TEST_LOG_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(TSX, [path.join(PROJECT_ROOT, entry)], { env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
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

/** Waits until `logFile` contains `text` (a process announcing it is ready). */
export async function waitForLog(logFile: string, text: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fs.existsSync(logFile) && fs.readFileSync(logFile, 'utf8').includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for "${text}" in ${logFile}`);
}
