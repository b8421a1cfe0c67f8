// Where the reliability suite runs and how much it does. It owns every resource it uses: a private
// MariaDB on its own port and datadir, a file-backed Temporal dev server, the sandbox, workers and
// API processes on ports of its own, so it can kill any of them without touching anyone else.
import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/config';

/** `RELIABILITY_LONG=1`: the same tests with larger counts (see docs/reliability.md). */
export const LONG_MODE = process.env.RELIABILITY_LONG === '1';
export const MODE: 'fast' | 'long' = LONG_MODE ? 'long' : 'fast';

export const RELIABILITY_LOG_DIR = path.join(PROJECT_ROOT, '.data', 'test-logs-rel');

export const RELIABILITY = {
  mariadb: {
    port: 3320,
    dataDir: '/tmp/rel-mariadb',
    socket: '/tmp/rel-mariadb.sock',
    pidFile: '/tmp/rel-mariadb.pid',
    logFile: path.join(RELIABILITY_LOG_DIR, 'mariadb.log'),
  },
  databaseUrl: 'mysql://root@127.0.0.1:3320/payments_rel',
  temporalPort: 17320,
  temporalUiPort: 18320,
  /** File-backed, so a restarted dev server keeps every workflow. */
  temporalDbFile: path.join(PROJECT_ROOT, '.data', 'reliability', 'temporal.sqlite'),
  sandboxPort: 13320,
  /** The API run as its own process (`src/api/main.ts`), which the process faults kill. */
  apiProcessPort: 13330,
  /** The in-process API of the test: admin operations, database and Temporal client. */
  apiPort: 13331,
  /** A separate in-process API with a low request rate limit. */
  rateLimitedApiPort: 13332,
  workerMetricsPorts: [19320, 19321, 19322, 19323, 19324, 19325, 19326, 19327, 19328, 19329],
  /** Held (listened on) for the whole run: a second run on this machine waits for the first. */
  lockPort: 17329,
  /** Shoppers answer 3D Secure at once; a notification lost to a fault is caught by the expiry check. */
  actionTtlSeconds: 60,
  /** A claim left by a killed API is taken over after this; clients meanwhile see 409 in use. */
  idempotencyLeaseMs: 8000,
} as const;

/** The shared test helpers (test/helpers/test-env.ts and friends) read these variables. */
export function reliabilityEnv(): Record<string, string> {
  return {
    TEST_DATABASE_URL: RELIABILITY.databaseUrl,
    TEST_TEMPORAL_PORT: String(RELIABILITY.temporalPort),
    TEST_TEMPORAL_UI_PORT: String(RELIABILITY.temporalUiPort),
    TEST_SANDBOX_PORT: String(RELIABILITY.sandboxPort),
    TEST_LOG_DIR: RELIABILITY_LOG_DIR,
  };
}

/** How much each part does: the fast mode runs in CI, the long mode on demand. */
export const COUNTS = LONG_MODE
  ? {
    chaosOperations: 240, chaosLanes: 6, workerKills: 12, refundWorkerKills: 12, refundKillPayments: 8, temporalRestarts: 2, apiRestarts: 3, databaseRestarts: 2,
    providerFaultRepeats: 3, sameKeyRounds: 3, sameKeyConcurrency: 50,
    refundSeeds: [11, 23, 37, 41, 53], refundRunsPerSeed: 4, crossMerchants: 6, crossCreatesPerMerchant: 10,
    fuzzCases: 10_000, isolationRounds: 3, rateLimitBurstMs: 6000,
  }
  : {
    chaosOperations: 40, chaosLanes: 6, workerKills: 2, refundWorkerKills: 4, refundKillPayments: 4, temporalRestarts: 1, apiRestarts: 1, databaseRestarts: 1,
    providerFaultRepeats: 1, sameKeyRounds: 1, sameKeyConcurrency: 50,
    refundSeeds: [11, 23, 37], refundRunsPerSeed: 2, crossMerchants: 4, crossCreatesPerMerchant: 2,
    fuzzCases: 1000, isolationRounds: 1, rateLimitBurstMs: 3000,
  };
