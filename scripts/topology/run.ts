// Starts docker-compose.yml as local processes (no Docker engine in CI): every service's own
// command and the environment compose gives it (scripts/topology/compose.ts maps addresses), the
// real Temporal server built with Go rendering the image's own config template from that
// environment, haproxy from Debian's packages with the repository's config, and the machine's
// MariaDB, PostgreSQL and Redis. `npm run topology` runs it in the foreground; test/topology
// drives it (kill -9, rolling restarts) through the handle it returns.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { temporalCliPath, waitForPort } from '../../src/temporal/dev-server';
import { dropDatabases, serverBinaries } from '../lib/temporal-server';
import { MACHINE, TOPOLOGY_PORTS, commandOf, loadCompose, localEnvironment, replicas, type ComposeFile } from './compose';

export const TOPOLOGY_DIR = path.join(PROJECT_ROOT, '.data', 'topology');
export const LOG_DIR = path.join(TOPOLOGY_DIR, 'logs');

/** What a process gets besides its compose environment: how to find programs, nothing else. */
export function baseEnvironment(binDir: string): Record<string, string> {
  return { PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: process.env.HOME ?? '/root' };
}

/** The compose file's required secrets, random for this run unless the environment gives them. */
export function topologyVariables(): Record<string, string> {
  const random = (bytes: number, encoding: BufferEncoding) => randomBytes(bytes).toString(encoding);
  const generated: Record<string, string> = {
    MARIADB_PASSWORD: random(32, 'base64url'),
    MARIADB_ROOT_PASSWORD: random(32, 'base64url'),
    TEMPORAL_DB_PASSWORD: random(32, 'base64url'),
    SANDBOX_NOTIFY_SECRET: random(32, 'base64url'),
    VAULT_KEY: random(32, 'hex'),
    TEMPORAL_CODEC_KEYS: `k1:${random(32, 'hex')}`,
    CODEC_AUTH_TOKEN: random(32, 'base64url'),
    // The topology test reads the acquirer's records; compose leaves these endpoints off by default.
    SANDBOX_CONTROL_TOKEN: random(32, 'base64url'),
  };
  const vars: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) vars[key] = value;
  for (const [key, value] of Object.entries(generated)) vars[key] ||= value;
  return vars;
}

export class LocalProcess {
  child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  readonly logFile: string;

  constructor(readonly name: string, readonly service: string, readonly argv: string[], readonly env: Record<string, string>, readonly healthUrl: string | null) {
    this.logFile = path.join(LOG_DIR, `${name}.log`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    fs.mkdirSync(LOG_DIR, { recursive: true });
    const fd = fs.openSync(this.logFile, 'a');
    // Its own process group, as a container is: kill -9 ends the whole service (a launcher such
    // as tsx and the process it runs), not only its first process.
    const child = spawn(this.argv[0]!, this.argv.slice(1), { cwd: PROJECT_ROOT, env: this.env, stdio: ['ignore', fd, fd], detached: true });
    fs.closeSync(fd);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => {
      // What the service left behind goes with it, as with a container.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // nothing left
      }
      resolve(code);
    }));
  }

  /** Resolves with the exit code of a one-shot service; throws unless it is 0. */
  async completes(): Promise<void> {
    const code = await this.exited;
    if (code !== 0) throw new Error(`${this.name} exited with ${code}; see ${this.logFile}`);
  }

  async waitHealthy(timeoutMs = 120_000): Promise<void> {
    if (!this.healthUrl) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited; see ${this.logFile}`);
      try {
        const res = await fetch(this.healthUrl, { signal: AbortSignal.timeout(2000) });
        if (res.ok) return;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error(`${this.name} not healthy at ${this.healthUrl} within ${timeoutMs} ms; see ${this.logFile}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** A signal to the service: SIGKILL to its whole group (kill -9 of a container), others to its first process (what `docker stop` does). */
  kill(signal: NodeJS.Signals): void {
    if (!this.running) return;
    if (signal === 'SIGKILL') process.kill(-this.child!.pid!, 'SIGKILL');
    else this.child!.kill(signal);
  }

  /** SIGTERM, then SIGKILL after the grace compose gives (40 s). */
  async stop(graceMs = 40_000): Promise<void> {
    if (!this.running) return;
    this.child!.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
    await this.waitHealthy();
  }
}

export interface Topology {
  compose: ComposeFile;
  vars: Record<string, string>;
  /** Every long-running process by name: temporal, sandbox, codec-server, worker-1, api-1, api-lb, ... */
  processes: Map<string, LocalProcess>;
  /** The load balancer: what merchants call. */
  url: string;
  temporalAddress: string;
  sandboxUrl: string;
  stop(): Promise<void>;
}

function sh(script: string, args: string[], env: Record<string, string> = {}): void {
  const result = spawnSync('bash', [path.join(PROJECT_ROOT, 'scripts', script), ...args], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
  if (result.status !== 0) throw new Error(`${script} failed`);
}

function isListening(host: string, port: number): Promise<boolean> {
  return waitForPort(port, host, 500).then(() => true, () => false);
}

/** haproxy's config from the repository's: the `bind` on the topology's port, one `server` per local replica. */
export function localHaproxyConfig(source: string, apiReplicas: number): string {
  const servers = Array.from({ length: apiReplicas }, (_, i) => `  server api-${i + 1} 127.0.0.1:${TOPOLOGY_PORTS.api + i} check`).join('\n');
  return source
    .replace(/^resolvers docker\n(?:[ \t]+.*\n)*/m, '')
    .replace(/^(\s*)bind :3000$/m, `$1bind 127.0.0.1:${TOPOLOGY_PORTS.loadBalancer}`)
    .replace(/^\s*server-template api \d+ api:3000 .*$/m, servers);
}

export async function startTopology(log: (line: string) => void = (line) => process.stderr.write(`topology: ${line}\n`)): Promise<Topology> {
  const vars = topologyVariables();
  const compose = loadCompose(vars);
  const processes = new Map<string, LocalProcess>();
  const stop = async () => {
    // Clients first, then what they need.
    const order = ['api-lb', 'api', 'worker', 'sandbox', 'codec-server', 'temporal'];
    for (const service of order) await Promise.all([...processes.values()].filter((p) => p.service === service).map((p) => p.stop(10_000)));
  };
  try {
    fs.rmSync(LOG_DIR, { recursive: true, force: true });
    fs.mkdirSync(LOG_DIR, { recursive: true });
    sh('ensure-haproxy.sh', []);
    // A fresh service database each run.
    const db = new URL(MACHINE.mariadbUrl);
    execFileSync('mysql', ['-h', db.hostname, '-P', db.port || '3306', '-u', decodeURIComponent(db.username), '-e', `DROP DATABASE IF EXISTS \`${db.pathname.slice(1)}\``], { stdio: 'pipe' });
    sh('ensure-mariadb.sh', [MACHINE.mariadbUrl]);
    const redis = new URL(MACHINE.redisUrl);
    if (!(await isListening(redis.hostname, Number(redis.port || 6379)))) {
      log('starting redis-server');
      execFileSync('redis-server', ['--port', redis.port || '6379', '--bind', redis.hostname, '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
    }

    // The image runs compiled JavaScript (dist/, its build stage's `npm run build`): build it from
    // the checkout as it is now, so a stale dist/ is never what the topology runs.
    if (Object.keys(compose.services).some((service) => compose.services[service]!.build !== undefined && commandOf(compose, service).some((arg) => arg.startsWith('dist/')))) {
      log('npm run build');
      execFileSync('npm', ['run', '-s', 'build'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    }
    // The images' programs under the names compose's commands use.
    const { server, sqlTool, schemaDir } = serverBinaries(log);
    const binDir = path.join(TOPOLOGY_DIR, 'bin');
    fs.mkdirSync(binDir, { recursive: true });
    for (const [name, target] of [['temporal-sql-tool', sqlTool], ['temporal', temporalCliPath()]] as const) {
      fs.rmSync(path.join(binDir, name), { force: true });
      fs.symlinkSync(target, path.join(binDir, name));
    }
    const imagePaths = { '/etc/temporal/schema': schemaDir };
    const env = (service: string, replica = 0) => ({ ...baseEnvironment(binDir), ...localEnvironment(compose, service, replica, imagePaths) });
    const oneShot = async (service: string) => {
      const proc = new LocalProcess(service, service, commandOf(compose, service), env(service), null);
      log(`running ${service}`);
      proc.start();
      await proc.completes();
    };
    const longRunning = (name: string, service: string, argv: string[], environment: Record<string, string>, healthUrl: string | null) => {
      const proc = new LocalProcess(name, service, argv, environment, healthUrl);
      processes.set(name, proc);
      proc.start();
      return proc;
    };

    try {
      dropDatabases(MACHINE.postgres, MACHINE.temporalDatabases, log);
    } catch {
      // not there yet
    }
    await oneShot('temporal-schema');
    // The image renders its config/docker.yaml template from the environment; so does this server.
    const temporalRoot = path.join(TOPOLOGY_DIR, 'temporal');
    fs.mkdirSync(path.join(temporalRoot, 'config'), { recursive: true });
    fs.copyFileSync(path.join(schemaDir, '..', 'config', 'docker.yaml'), path.join(temporalRoot, 'config', 'docker.yaml'));
    const temporal = longRunning('temporal', 'temporal', [server, '--root', temporalRoot, '--config', 'config', '--env', 'docker', '--allow-no-auth', 'start'], env('temporal'), null);
    await waitForPort(TOPOLOGY_PORTS.temporal, '127.0.0.1', 120_000);
    if (!temporal.running) throw new Error(`temporal exited; see ${temporal.logFile}`);
    await oneShot('temporal-search-attributes');
    // The namespace cache refreshes every few seconds: let the new namespace reach every service.
    await new Promise((r) => setTimeout(r, 12_000));

    const P = TOPOLOGY_PORTS;
    const sandbox = longRunning('sandbox', 'sandbox', commandOf(compose, 'sandbox'), env('sandbox'), `http://127.0.0.1:${P.sandbox}/health`);
    const codec = longRunning('codec-server', 'codec-server', commandOf(compose, 'codec-server'), env('codec-server'), `http://127.0.0.1:${P.codec}/health`);
    await oneShot('migrate');
    await Promise.all([sandbox.waitHealthy(), codec.waitHealthy()]);
    const started: LocalProcess[] = [];
    for (let i = 0; i < replicas(compose, 'worker'); i += 1) {
      started.push(longRunning(`worker-${i + 1}`, 'worker', commandOf(compose, 'worker'), env('worker', i), `http://127.0.0.1:${P.workerMetrics + i}/health`));
    }
    const apiReplicas = replicas(compose, 'api');
    for (let i = 0; i < apiReplicas; i += 1) {
      started.push(longRunning(`api-${i + 1}`, 'api', commandOf(compose, 'api'), env('api', i), `http://127.0.0.1:${P.api + i}/v1/health`));
    }
    await Promise.all(started.map((p) => p.waitHealthy()));

    const haproxyConfig = path.join(TOPOLOGY_DIR, 'haproxy.cfg');
    fs.writeFileSync(haproxyConfig, localHaproxyConfig(fs.readFileSync(path.join(PROJECT_ROOT, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8'), apiReplicas));
    const lb = longRunning('api-lb', 'api-lb', ['haproxy', '-db', '-f', haproxyConfig], baseEnvironment(binDir), `http://127.0.0.1:${P.loadBalancer}/v1/health`);
    await lb.waitHealthy();
    log(`up: API ${`http://127.0.0.1:${P.loadBalancer}`}, Temporal 127.0.0.1:${P.temporal}, logs ${LOG_DIR}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    compose,
    vars,
    processes,
    url: `http://127.0.0.1:${TOPOLOGY_PORTS.loadBalancer}`,
    temporalAddress: `127.0.0.1:${TOPOLOGY_PORTS.temporal}`,
    sandboxUrl: `http://127.0.0.1:${TOPOLOGY_PORTS.sandbox}`,
    stop,
  };
}
