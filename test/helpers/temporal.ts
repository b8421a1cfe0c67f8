// Processes of the crash tests: dedicated workers and API servers that a test kills with SIGKILL,
// and a look into a workflow's running activities.
import type { Client } from '@temporalio/client';
import { eventually } from './api';
import { freePort, spawnTs, waitForLog, type ManagedProcess } from './processes';
import { TEST_CODEC_ENV } from '../replay/codec-test-key';
import { TEST_ENV, workerEnv } from './test-env';

/** A worker process of its own on `taskQueue`, ready to poll. */
export async function startWorkerProcess(name: string, taskQueue: string, env: Record<string, string> = {}): Promise<ManagedProcess> {
  const worker = spawnTs(name, 'workers/main.ts', workerEnv({ TEMPORAL_TASK_QUEUE: taskQueue, ...env }));
  await waitForLog(worker.logFile, 'worker running', 120_000);
  return worker;
}

/** An API server in a process of its own (`npm run api`), so a test can kill it mid-request. */
export async function startApiProcess(name: string, env: Record<string, string> = {}): Promise<{ process: ManagedProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = spawnTs(name, 'src/api/main.ts', {
    PORT: String(port),
    PUBLIC_BASE_URL: url,
    DATABASE_URL: TEST_ENV.databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${TEST_ENV.temporalPort}`,
    TEMPORAL_TASK_QUEUE: TEST_ENV.taskQueue,
    SANDBOX_URL: `http://127.0.0.1:${TEST_ENV.sandboxPort}`,
    SANDBOX_NOTIFY_SECRET: TEST_ENV.notifySecret,
    VAULT_KEY: TEST_ENV.vaultKey,
    ...TEST_CODEC_ENV,
    PAYMENT_ACTION_TTL_SECONDS: String(TEST_ENV.actionTtlSeconds),
    ...env,
  });
  await waitForLog(started.logFile, 'API listening', 120_000);
  return { process: started, url };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILL: no shutdown hook runs, nothing in flight is finished or released. */
export async function killHard(managed: ManagedProcess): Promise<void> {
  const pid = managed.child.pid!;
  process.kill(pid, 'SIGKILL');
  await managed.stop();
  await eventually(async () => alive(pid), (running) => !running);
}

/** Names of the workflow's activities that a worker has started and not finished. */
export async function runningActivities(client: Client, workflowId: string): Promise<string[]> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    return (description.raw.pendingActivities ?? [])
      .filter((a) => Number(a.state) === 2) // PENDING_ACTIVITY_STATE_STARTED
      .map((a) => a.activityType?.name ?? '');
  } catch {
    return []; // not started yet
  }
}

/**
 * True while a worker runs the workflow's authorization: a started `authorizeCard` activity, or
 * (since the authorization is a local activity) a workflow task a worker has started and not finished.
 */
export async function authorizationInFlight(client: Client, workflowId: string): Promise<boolean> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    const task = description.raw.pendingWorkflowTask;
    return Number(task?.state) === 2 // PENDING_WORKFLOW_TASK_STATE_STARTED
      || (await runningActivities(client, workflowId)).includes('authorizeCard');
  } catch {
    return false; // not started yet
  }
}

/** The worker identities that took workflow tasks of this workflow (finished or not). */
export async function workflowTaskWorkers(client: Client, workflowId: string): Promise<Set<string>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return new Set((history.events ?? []).map((e) => e.workflowTaskStartedEventAttributes?.identity ?? '').filter(Boolean));
}
