// The shared test environment: names and ports of the real services the integration suite uses.
import { TEST_CODEC_ENV, TEST_CODEC_KEYS } from '../replay/codec-test-key';

export const TEST_ENV = {
  databaseUrl: process.env.TEST_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/payments_test',
  temporalPort: Number(process.env.TEST_TEMPORAL_PORT ?? 17233),
  temporalUiPort: Number(process.env.TEST_TEMPORAL_UI_PORT ?? 18233),
  sandboxPort: Number(process.env.TEST_SANDBOX_PORT ?? 13100),
  workerMetricsPort: Number(process.env.TEST_TEMPORAL_PORT ?? 17233) + 2000,
  taskQueue: 'payments-test',
  settleMs: 300,
  notifySecret: 'test-notify-secret',
  /** Bearer token of the sandbox's control endpoints (/_sandbox/*), which test/helpers/sandbox.ts sends. */
  sandboxControlToken: 'test-sandbox-control-token',
  vaultKey: 'a1'.repeat(32),
  /** Every client and worker of the suite encrypts payloads with the key of the committed histories. */
  codecKeys: TEST_CODEC_KEYS,
  /** The suite's codec server, which the dev server's UI decodes payloads with. */
  codecPort: Number(process.env.TEST_CODEC_PORT ?? Number(process.env.TEST_TEMPORAL_UI_PORT ?? 18233) + 1),
  actionTtlSeconds: 8,
};

export function workerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: TEST_ENV.databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${TEST_ENV.temporalPort}`,
    TEMPORAL_TASK_QUEUE: TEST_ENV.taskQueue,
    SANDBOX_URL: `http://127.0.0.1:${TEST_ENV.sandboxPort}`,
    VAULT_KEY: TEST_ENV.vaultKey,
    ...TEST_CODEC_ENV,
    LOG_LEVEL: 'info',
    // Webhook retries start after 1 s and an attempt times out after 2 s, so tests see retries quickly.
    WEBHOOK_INITIAL_RETRY_SECONDS: '1',
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000',
    // A sweeper looks for events whose relay died every second (5 s in production).
    WEBHOOK_RELAY_SWEEP_SECONDS: '1',
    // The worker's vault sweep forgets CVCs past this TTL (plus a margin): the API's TTL, swept every second.
    PAYMENT_ACTION_TTL_SECONDS: String(TEST_ENV.actionTtlSeconds),
    VAULT_SWEEP_SECONDS: '1',
    // Extra workers of crash tests pick a free metrics port; the suite's main worker gets a fixed one.
    WORKER_METRICS_PORT: '0',
    ...extra,
    // A worker on a queue of its own leaves the chore schedules on the suite's queue: its queue dies with it.
    CHORE_SCHEDULES: extra.CHORE_SCHEDULES ?? (extra.TEMPORAL_TASK_QUEUE && extra.TEMPORAL_TASK_QUEUE !== TEST_ENV.taskQueue ? 'off' : 'on'),
  };
}
