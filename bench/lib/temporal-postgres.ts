// A Temporal server with PostgreSQL persistence, for comparing with the SQLite dev server: the
// production one (scripts/lib/temporal-server.ts), on the bench ports (17342-17349, plus
// BENCH_PORT_OFFSET), databases payments_bench_temporal*.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { temporalCliPath, waitForPort } from '../../src/temporal/dev-server';
import { untilTemporalServes } from '../../src/temporal/serving';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../contracts/search-attributes';
import { SERVER_VERSION, dropDatabases, serverPorts, setupSchema, spawnServer } from '../../scripts/lib/temporal-server';
import { PORTS, running } from './env';
import { BENCH_DATA_DIR, BENCH_LOG_DIR, managed, type BenchProcess } from './processes';

const PG = { host: '127.0.0.1', port: 5432, user: process.env.BENCH_PG_USER ?? 'postgres' };
const DATABASES = { main: 'payments_bench_temporal', visibility: 'payments_bench_temporal_visibility' };
const P = serverPorts(PORTS.temporalPostgres);

export interface PostgresTemporal {
  address: string;
  description: string;
  process: BenchProcess;
  stop(): Promise<void>;
}

function cli(args: string[]): void {
  execFileSync(temporalCliPath(), args, { stdio: 'pipe' });
}

export async function startPostgresTemporal(log: (line: string) => void): Promise<PostgresTemporal> {
  setupSchema(PG, DATABASES, log);
  fs.rmSync(path.join(BENCH_LOG_DIR, 'temporal-postgres.log'), { force: true });
  const logFile = path.join(BENCH_LOG_DIR, 'temporal-postgres.log');
  const { child } = spawnServer({ pg: PG, databases: DATABASES, basePort: PORTS.temporalPostgres, root: path.join(BENCH_DATA_DIR, 'temporal-postgres'), logFile }, log);
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
    await untilTemporalServes(address);
    // The namespace cache refreshes every few seconds: let the new namespace reach every service.
    await new Promise((r) => setTimeout(r, 12_000));
  } catch (error) {
    await proc.stop();
    throw error;
  }
  const stop = async () => {
    running.delete(stop);
    await proc.stop();
    try {
      dropDatabases(PG, DATABASES, log);
    } catch {
      // left for the next run, which drops it first
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
