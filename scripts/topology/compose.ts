// docker-compose.yml read the way `docker compose` reads it (merge keys, `${VAR}`, `${VAR:-default}`,
// `${VAR:?message}`, `$$`), and the one mapping from a compose service to a local process: the
// service host names and ports of the compose network become 127.0.0.1 and the topology's ports
// (19400-19499), mounted files become their paths in the checkout, and the service databases
// become the machine's own (docs/deployment.md, "The same topology without Docker"). Nothing else
// of a service's environment changes: test/topology/environment.test.ts compares.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../src/config';

export const COMPOSE_FILE = path.join(PROJECT_ROOT, 'docker-compose.yml');

export interface ComposeService {
  image?: string;
  build?: string;
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  volumes?: string[];
  deploy?: { replicas?: number };
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
}

/** Compose's variable interpolation, applied to every string of the file. */
export function interpolate(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced?: string, op?: string, arg?: string, bare?: string) => {
    if (match === '$$') return '$';
    const name = (braced ?? bare)!;
    const value = vars[name];
    const unset = value === undefined || (op?.startsWith(':') === true && value === '');
    if (op === ':-' || op === '-') return unset ? arg! : value!;
    if (op === ':?' || op === '?') {
      if (unset) throw new Error(`docker-compose.yml: ${name}: ${arg}`);
      return value!;
    }
    return value ?? '';
  });
}

function interpolateAll(node: unknown, vars: Record<string, string | undefined>): unknown {
  if (typeof node === 'string') return interpolate(node, vars);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, vars));
  if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolateAll(v, vars)]));
  return node;
}

export function loadCompose(vars: Record<string, string | undefined>, file = COMPOSE_FILE): ComposeFile {
  return interpolateAll(parse(fs.readFileSync(file, 'utf8'), { merge: true }), vars) as ComposeFile;
}

/** A service's environment as compose gives it to the container (values as strings). */
export function serviceEnvironment(compose: ComposeFile, service: string): Record<string, string> {
  const env = compose.services[service]?.environment;
  if (!compose.services[service]) throw new Error(`docker-compose.yml has no service ${service}`);
  return Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

export function replicas(compose: ComposeFile, service: string): number {
  return compose.services[service]?.deploy?.replicas ?? 1;
}

/** The topology's ports (below 32768: Temporal's PostgreSQL schema stores membership ports as smallint). */
export const TOPOLOGY_PORTS = {
  loadBalancer: 19400,
  /** API replica i (from 0) listens on api + i, its metrics on apiMetrics + i. */
  api: 19401,
  apiMetrics: 19411,
  workerMetrics: 19421,
  sandbox: 19430,
  codec: 19432,
  /** The Temporal server's gRPC and membership ports: 19440-19449. */
  temporal: 19440,
  temporalUi: 19450,
} as const;

/** The machine's own databases and Redis, which the topology uses instead of compose's containers. */
export interface MachineServices {
  /** MariaDB: `root` without a password on 127.0.0.1:3306. */
  mariadbUrl: string;
  postgres: { host: string; port: number; user: string };
  temporalDatabases: { main: string; visibility: string };
  redisUrl: string;
}

export const MACHINE: MachineServices = {
  mariadbUrl: process.env.TOPOLOGY_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/payments_topo',
  postgres: { host: '127.0.0.1', port: 5432, user: process.env.TOPOLOGY_PG_USER ?? 'postgres' },
  temporalDatabases: { main: 'payments_topo_temporal', visibility: 'payments_topo_temporal_visibility' },
  redisUrl: process.env.TOPOLOGY_REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** compose network address -> local address. */
function addresses(): Record<string, string> {
  const P = TOPOLOGY_PORTS;
  const redis = new URL(MACHINE.redisUrl);
  return {
    'temporal:7233': `127.0.0.1:${P.temporal}`,
    'sandbox:3100': `127.0.0.1:${P.sandbox}`,
    'api-lb:3000': `127.0.0.1:${P.loadBalancer}`,
    'redis:6379': `${redis.hostname}:${redis.port || 6379}`,
    // What compose publishes on the host.
    'localhost:3000': `127.0.0.1:${P.loadBalancer}`,
    'localhost:3100': `127.0.0.1:${P.sandbox}`,
    'localhost:3200': `127.0.0.1:${P.codec}`,
    'localhost:8233': `127.0.0.1:${P.temporalUi}`,
  };
}

/** Settings naming a port a replica listens on: each local replica gets its own. */
function listenPort(service: string, key: string, replica: number): number | null {
  const P = TOPOLOGY_PORTS;
  if (service === 'api' && key === 'PORT') return P.api + replica;
  if (service === 'api' && key === 'API_METRICS_PORT') return P.apiMetrics + replica;
  if (service === 'worker' && key === 'WORKER_METRICS_PORT') return P.workerMetrics + replica;
  if (service === 'sandbox' && key === 'SANDBOX_PORT') return P.sandbox;
  if (service === 'codec-server' && key === 'CODEC_PORT') return P.codec;
  return null;
}

/** Temporal's persistence settings (server and schema tool): the machine's PostgreSQL and databases. */
function temporalDatabaseSetting(key: string): string | null {
  const pg = MACHINE.postgres;
  const values: Record<string, string> = {
    POSTGRES_SEEDS: pg.host, SQL_HOST: pg.host, DB_PORT: String(pg.port), SQL_PORT: String(pg.port),
    POSTGRES_USER: pg.user, SQL_USER: pg.user, POSTGRES_PWD: '', SQL_PASSWORD: '',
    DBNAME: MACHINE.temporalDatabases.main, VISIBILITY_DBNAME: MACHINE.temporalDatabases.visibility,
  };
  return key in values ? values[key]! : null;
}

/**
 * The Temporal server's ports, which compose leaves at the image's defaults (7233, 6933, ...): the
 * only settings a local process has that its compose service does not.
 */
export function temporalServerPorts(): Record<string, string> {
  const base = TOPOLOGY_PORTS.temporal;
  const names = ['FRONTEND_GRPC_PORT', 'FRONTEND_MEMBERSHIP_PORT', 'HISTORY_GRPC_PORT', 'HISTORY_MEMBERSHIP_PORT', 'MATCHING_GRPC_PORT', 'MATCHING_MEMBERSHIP_PORT', 'WORKER_GRPC_PORT', 'WORKER_MEMBERSHIP_PORT', 'FRONTEND_HTTP_PORT'];
  return Object.fromEntries(names.map((name, i) => [name, String(base + i)]));
}

/** A path inside a container -> the file in the checkout that compose mounts there. */
export function mountedPath(compose: ComposeFile, service: string, containerPath: string): string | null {
  for (const volume of compose.services[service]?.volumes ?? []) {
    const [source, target] = volume.split(':');
    if (source?.startsWith('./') && target === containerPath) return path.join(PROJECT_ROOT, source);
  }
  return null;
}

/**
 * The environment the local process of `service` (replica `replica`) gets: compose's, with the
 * documented mapping applied and nothing added or dropped.
 */
export function localEnvironment(compose: ComposeFile, service: string, replica = 0, imagePaths: Record<string, string> = {}): Record<string, string> {
  const map = addresses();
  const env: Record<string, string> = {};
  for (const [key, composed] of Object.entries(serviceEnvironment(compose, service))) {
    let value = composed;
    for (const [from, to] of Object.entries(map)) value = value.split(from).join(to);
    const port = listenPort(service, key, replica);
    if (port !== null) value = String(port);
    if (key === 'DATABASE_URL') value = MACHINE.mariadbUrl;
    if (service.startsWith('temporal')) value = temporalDatabaseSetting(key) ?? mountedPath(compose, service, value) ?? value;
    for (const [from, to] of Object.entries(imagePaths)) if (value.startsWith(`${from}/`)) value = to + value.slice(from.length);
    env[key] = value;
  }
  if (service === 'temporal') Object.assign(env, temporalServerPorts());
  return env;
}

/** A service's command as an argv (a string command is run by a shell, as compose does). */
export function commandOf(compose: ComposeFile, service: string): string[] {
  const command = compose.services[service]?.command;
  if (command === undefined) throw new Error(`docker-compose.yml: ${service} has no command`);
  return Array.isArray(command) ? command : ['sh', '-c', command];
}
