// A Temporal server with PostgreSQL persistence, for comparing with the SQLite dev server. Built
// from source with Go (go.temporal.io/server v1.29.1, the server inside CLI v1.5.1) into a cache
// outside the clone, schema applied with temporal-sql-tool from the same module, run with a
// generated config on the bench ports (17342-17349, plus BENCH_PORT_OFFSET), databases payments_bench_temporal*.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { DEV_SERVER_DYNAMIC_CONFIG, temporalCliPath, waitForPort } from '../../src/temporal/dev-server';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../workflows/contracts/search-attributes';
import { PORTS, running } from './env';
import { go, goInstall, toolCacheDir } from './go-tools';
import { BENCH_DATA_DIR, BENCH_LOG_DIR, managed, type BenchProcess } from './processes';

export const SERVER_VERSION = 'v1.29.1';
const CACHE_DIR = process.env.TEMPORAL_SERVER_CACHE ?? toolCacheDir(`temporal-server-${SERVER_VERSION}`);
const PG = { host: '127.0.0.1', port: 5432, user: process.env.BENCH_PG_USER ?? 'postgres' };
const DATABASES = { main: 'payments_bench_temporal', visibility: 'payments_bench_temporal_visibility' };
const P = Object.fromEntries(['frontend', 'frontendMembership', 'history', 'historyMembership', 'matching', 'matchingMembership', 'worker', 'workerMembership']
  .map((name, i) => [name, PORTS.temporalPostgres + i])) as Record<'frontend' | 'frontendMembership' | 'history' | 'historyMembership' | 'matching' | 'matchingMembership' | 'worker' | 'workerMembership', number>;

export interface PostgresTemporal {
  address: string;
  description: string;
  process: BenchProcess;
  stop(): Promise<void>;
}

/** The server and temporal-sql-tool binaries, built on first use (a few minutes). */
export function serverBinaries(log: (line: string) => void): { server: string; sqlTool: string; moduleDir: string } {
  const [server, sqlTool] = goInstall(CACHE_DIR, [`go.temporal.io/server/cmd/server@${SERVER_VERSION}`, `go.temporal.io/server/cmd/tools/sql@${SERVER_VERSION}`], ['server', 'sql'], log) as [string, string];
  const gomodcache = execFileSync(go(), ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const moduleDir = path.join(gomodcache, `go.temporal.io/server@${SERVER_VERSION}`);
  if (!fs.existsSync(path.join(moduleDir, 'schema'))) throw new Error(`schema files not found in ${moduleDir}`);
  return { server, sqlTool, moduleDir };
}

function sqlTool(tool: string, database: string, args: string[]): void {
  execFileSync(tool, ['--plugin', 'postgres12', '--ep', PG.host, '-p', String(PG.port), '-u', PG.user, '--db', database, ...args], { stdio: 'pipe' });
}

function config(dynamicConfigFile: string): string {
  const datastore = (database: string, maxConns: number) => `
      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "${PG.host}:${PG.port}"
        connectProtocol: "tcp"
        user: "${PG.user}"
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
  numHistoryShards: 4
  datastores:
    pg-default:${datastore(DATABASES.main, 8)}
    pg-visibility:${datastore(DATABASES.visibility, 2)}
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
  filepath: "${dynamicConfigFile}"
  pollInterval: "10s"
`;
}

// Update-with-Start needs updates and multi-operations; the dev server turns them on itself. The
// rest are the dev server's own values (eager activities and workflow start, the transfer queue's
// read rate), taken from its list so that the two servers cannot drift apart.
const DYNAMIC_CONFIG = ['frontend.enableUpdateWorkflowExecution=true', 'frontend.enableExecuteMultiOperation=true', ...DEV_SERVER_DYNAMIC_CONFIG]
  .map((setting) => {
    const [key, value] = setting.split('=');
    return `${key}:\n  - value: ${value}\n`;
  })
  .join('');

function cli(args: string[]): void {
  execFileSync(temporalCliPath(), args, { stdio: 'pipe' });
}

export async function startPostgresTemporal(log: (line: string) => void): Promise<PostgresTemporal> {
  const { server, sqlTool: tool, moduleDir } = serverBinaries(log);
  const schema = path.join(moduleDir, 'schema', 'postgresql', 'v12');
  for (const [database, dir] of [[DATABASES.main, 'temporal'], [DATABASES.visibility, 'visibility']] as const) {
    sqlTool(tool, database, ['drop-database', '--force']);
    sqlTool(tool, database, ['create-database']);
    sqlTool(tool, database, ['setup-schema', '-v', '0.0']);
    sqlTool(tool, database, ['update-schema', '-d', path.join(schema, dir, 'versioned')]);
  }
  const root = path.join(BENCH_DATA_DIR, 'temporal-postgres');
  fs.mkdirSync(path.join(root, 'config'), { recursive: true });
  fs.writeFileSync(path.join(root, 'config', 'bench.yaml'), config(path.join(root, 'config', 'dynamicconfig.yaml')));
  fs.writeFileSync(path.join(root, 'config', 'dynamicconfig.yaml'), DYNAMIC_CONFIG);
  fs.mkdirSync(BENCH_LOG_DIR, { recursive: true });
  const logFile = path.join(BENCH_LOG_DIR, 'temporal-postgres.log');
  const fd = fs.openSync(logFile, 'w');
  const child = spawn(server, ['--root', root, '--config', 'config', '--env', 'bench', '--allow-no-auth', 'start'], { stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const proc = managed('temporal', child, logFile);
  const address = `127.0.0.1:${P.frontend}`;
  try {
    const exited = new Promise<never>((_, reject) => child.once('exit', () => reject(new Error(`temporal server exited; see ${logFile}`))));
    await Promise.race([waitForPort(P.frontend, '127.0.0.1', 120_000), exited]);
    // The default namespace and our search attributes, as `start-dev` would register them.
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        cli(['operator', 'namespace', 'create', '--address', address, '--namespace', 'default', '--retention', '24h']);
        break;
      } catch (error) {
        const message = String((error as { stderr?: Buffer }).stderr ?? error);
        if (/already exists|AlreadyExists/i.test(message)) break;
        if (Date.now() > deadline) throw new Error(`could not create the default namespace: ${message}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS)) {
      cli(['operator', 'search-attribute', 'create', '--address', address, '--namespace', 'default', '--name', name, '--type', type]);
    }
    const connection = await Connection.connect({ address });
    try {
      for (let i = 0; i < 120; i += 1) {
        try {
          await connection.workflowService.describeNamespace({ namespace: 'default' });
          break;
        } catch {
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      await connection.close();
    }
    // The namespace cache refreshes every few seconds: let the new namespace reach every service.
    await new Promise((r) => setTimeout(r, 12_000));
  } catch (error) {
    await proc.stop();
    throw error;
  }
  const stop = async () => {
    running.delete(stop);
    await proc.stop();
    for (const database of Object.values(DATABASES)) {
      try {
        sqlTool(tool, database, ['drop-database', '--force']);
      } catch {
        // left for the next run, which drops it first
      }
    }
  };
  running.add(stop);
  return {
    address,
    description: `Temporal server ${SERVER_VERSION} (go install), PostgreSQL ${PG.host}:${PG.port} persistence and visibility, 4 history shards`,
    process: proc,
    stop,
  };
}
