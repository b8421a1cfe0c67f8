// Starts `temporal server start-dev` (the Temporal CLI built by scripts/temporal-cli.sh) with our
// search attributes registered, for `npm start` and for the test suite.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../config';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../contracts/search-attributes';
import { untilTemporalServes } from './serving';

export interface DevServerOptions {
  port: number;
  /** null runs it headless. */
  uiPort: number | null;
  /** The codec server the Web UI decodes payloads with (the browser calls it). */
  codecEndpoint?: string;
  /** null keeps everything in memory. */
  dbFile: string | null;
  logFile: string;
  extraArgs?: string[];
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Dynamic config every dev server gets (`npm start`, the tests, the bench), production settings:
 * - Eager activity execution: a workflow task that schedules an activity on its own task queue gets
 *   it back in the same round trip (a refund's submission; the projector's change records).
 * - Eager workflow start: a worker that starts a workflow on its own task queue (a refund's
 *   RefundWorkflow) gets its first task with the start's answer.
 * - The dev server has one history shard, and a shard reads its transfer queue (where a workflow
 *   task that follows an activity, a signal or a workflow start waits to be handed to matching) at
 *   most 20 times a second by default: under a few requests a second that held such a task up to
 *   50 ms (a refund's answering task: p99 90 -> 60 ms at 10/s, bench/NOTES.md). A cluster with many
 *   shards reads each shard that often; one shard needs more.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: readonly string[] = [
  'system.enableActivityEagerExecution=true',
  'system.enableEagerWorkflowStart=true',
  'history.transferProcessorMaxPollRPS=1000',
];

/** Path of a Temporal CLI, building it on first use (see scripts/temporal-cli.sh). */
export function temporalCliPath(): string {
  const result = spawnSync('bash', [path.join(PROJECT_ROOT, 'scripts', 'temporal-cli.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const cli = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !cli) throw new Error('could not provide a Temporal CLI (see the message above)');
  return cli;
}

/** Whether something accepts connections on the port now. */
export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => { socket.destroy(); resolve(false); });
  });
}

export async function waitForPort(port: number, host = '127.0.0.1', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isListening(port, host))) {
    if (Date.now() > deadline) throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The command line of `temporal server start-dev` for these options. */
export function devServerArgs(options: Omit<DevServerOptions, 'logFile'>): string[] {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1');
  if (options.uiPort !== null && options.codecEndpoint) args.push('--ui-codec-endpoint', options.codecEndpoint);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS)) args.push('--search-attribute', `${name}=${type}`);
  for (const value of DEV_SERVER_DYNAMIC_CONFIG) args.push('--dynamic-config-value', value);
  args.push(...(options.extraArgs ?? []));
  return args;
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const cli = temporalCliPath();
  // Otherwise the new server would fail to bind while the wait below found the old one listening:
  // the caller would silently share a stale server's workflows (a test run killed before its teardown).
  if (await isListening(options.port)) {
    throw new Error(`port ${options.port} is already in use (a Temporal server left by an earlier run?): stop that process, or set TEMPORAL_ADDRESS to use a server that is already running`);
  }
  const args = devServerArgs(options);
  if (options.dbFile) fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(cli, args, { stdio: ['ignore', log, log], detached: false });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `127.0.0.1:${options.port}`;
  await Promise.race([
    waitForPort(options.port).then(() => untilTemporalServes(address)),
    exited.then(() => { throw new Error(`temporal server exited early; see ${options.logFile}`); }),
  ]);
  if (options.uiPort !== null) await waitForPort(options.uiPort).catch(() => undefined);
  return {
    address,
    uiUrl: options.uiPort === null ? null : `http://127.0.0.1:${options.uiPort}`,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
