// A Temporal server with PostgreSQL persistence, as production runs it (docker-compose.yml): built
// from source with Go (go.temporal.io/server v1.29.1, the server inside CLI v1.5.1) into a cache
// outside the clone, schema applied with temporal-sql-tool from the same module, dynamic config
// from deploy/temporal/dynamicconfig.yaml (the file compose mounts). `npm run topology` and the
// bench's PostgreSQL configuration both start it through here, each on its own ports and databases.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { DEV_SERVER_DYNAMIC_CONFIG } from '../../src/temporal/dev-server';
import { go, goInstall, toolCacheDir } from './go-tools';

export const SERVER_VERSION = 'v1.29.1';
const CACHE_DIR = process.env.TEMPORAL_SERVER_CACHE ?? toolCacheDir(`temporal-server-${SERVER_VERSION}`);

/** The server's dynamic config, mounted into the compose server and read by every local one. */
export const DYNAMIC_CONFIG_FILE = path.join(PROJECT_ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml');

/**
 * What deploy/temporal/dynamicconfig.yaml must say: Update-with-Start needs updates and
 * multi-operations (the dev server turns them on itself); the rest are the dev server's own values
 * (eager activities and workflow start, the transfer queue's read rate), taken from its list so
 * that the two servers cannot drift apart (test/unit/docker-compose.test.ts compares).
 */
export function expectedDynamicConfig(): string {
  return ['frontend.enableUpdateWorkflowExecution=true', 'frontend.enableExecuteMultiOperation=true', ...DEV_SERVER_DYNAMIC_CONFIG]
    .map((setting) => {
      const [key, value] = setting.split('=');
      return `${key}:\n  - value: ${value}\n`;
    })
    .join('');
}

export interface PostgresEndpoint {
  host: string;
  port: number;
  user: string;
}

export interface TemporalDatabases {
  main: string;
  visibility: string;
}

/** The server and temporal-sql-tool binaries, built on first use (a few minutes). */
export function serverBinaries(log: (line: string) => void): { server: string; sqlTool: string; schemaDir: string } {
  const [server, sqlTool] = goInstall(CACHE_DIR, [`go.temporal.io/server/cmd/server@${SERVER_VERSION}`, `go.temporal.io/server/cmd/tools/sql@${SERVER_VERSION}`], ['server', 'sql'], log) as [string, string];
  const gomodcache = execFileSync(go(), ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const schemaDir = path.join(gomodcache, `go.temporal.io/server@${SERVER_VERSION}`, 'schema');
  if (!fs.existsSync(schemaDir)) throw new Error(`schema files not found in ${schemaDir}`);
  return { server, sqlTool, schemaDir };
}

function sqlTool(tool: string, pg: PostgresEndpoint, database: string, args: string[]): void {
  execFileSync(tool, ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user, '--db', database, ...args], { stdio: 'pipe' });
}

/** Drops and creates both databases and applies Temporal's schema with its own tool. */
export function setupSchema(pg: PostgresEndpoint, databases: TemporalDatabases, log: (line: string) => void): void {
  const { sqlTool: tool, schemaDir } = serverBinaries(log);
  const schema = path.join(schemaDir, 'postgresql', 'v12');
  for (const [database, dir] of [[databases.main, 'temporal'], [databases.visibility, 'visibility']] as const) {
    sqlTool(tool, pg, database, ['drop-database', '--force']);
    sqlTool(tool, pg, database, ['create-database']);
    sqlTool(tool, pg, database, ['setup-schema', '-v', '0.0']);
    sqlTool(tool, pg, database, ['update-schema', '-d', path.join(schema, dir, 'versioned')]);
  }
}

export function dropDatabases(pg: PostgresEndpoint, databases: TemporalDatabases, log: (line: string) => void): void {
  const { sqlTool: tool } = serverBinaries(log);
  for (const database of Object.values(databases)) sqlTool(tool, pg, database, ['drop-database', '--force']);
}

/** The eight ports (gRPC and membership of four services) from `basePort`; below 32768 (smallint in the schema). */
export function serverPorts(basePort: number): Record<'frontend' | 'frontendMembership' | 'history' | 'historyMembership' | 'matching' | 'matchingMembership' | 'worker' | 'workerMembership', number> {
  return Object.fromEntries(['frontend', 'frontendMembership', 'history', 'historyMembership', 'matching', 'matchingMembership', 'worker', 'workerMembership']
    .map((name, i) => [name, basePort + i])) as ReturnType<typeof serverPorts>;
}

function serverConfig(pg: PostgresEndpoint, databases: TemporalDatabases, basePort: number, shards: number): string {
  const P = serverPorts(basePort);
  const datastore = (database: string, maxConns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "${pg.host}:${pg.port}"
        connectProtocol: "tcp"
        user: "${pg.user}"
        password: ""
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const service = (grpc: number, membership: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true`;
  // The shared PostgreSQL allows 100 connections: 4 services x (8 + 2) stay well inside.
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: pg-default
  visibilityStore: pg-visibility
  numHistoryShards: ${shards}
  datastores:
    pg-default:${datastore(databases.main, 8)}
    pg-visibility:${datastore(databases.visibility, 2)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:${service(P.frontend, P.frontendMembership)}
  matching:${service(P.matching, P.matchingMembership)}
  history:${service(P.history, P.historyMembership)}
  worker:${service(P.worker, P.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${P.frontend}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "${DYNAMIC_CONFIG_FILE}"
  pollInterval: "10s"
`;
}

export interface ServerOptions {
  pg: PostgresEndpoint;
  databases: TemporalDatabases;
  basePort: number;
  /** Where the generated config goes. */
  root: string;
  logFile: string;
  shards?: number;
}

/** Starts the server (schema must be set up); resolves once its frontend accepts connections. */
export function spawnServer(options: ServerOptions, log: (line: string) => void): { child: ChildProcess; address: string } {
  const { server } = serverBinaries(log);
  fs.mkdirSync(path.join(options.root, 'config'), { recursive: true });
  fs.writeFileSync(path.join(options.root, 'config', 'local.yaml'), serverConfig(options.pg, options.databases, options.basePort, options.shards ?? 4));
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const fd = fs.openSync(options.logFile, 'a');
  const child = spawn(server, ['--root', options.root, '--config', 'config', '--env', 'local', '--allow-no-auth', 'start'], { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  return { child, address: `127.0.0.1:${serverPorts(options.basePort).frontend}` };
}
