// The projection module every projecting workflow uses (workflows/projection.ts), driven by a probe
// workflow on a worker of this test with a recordChange activity that only records its calls: one
// activity per turn with the snapshot, its events and its cards, and a stop that waits for the
// handlers still running, so a late change is projected before the workflow ends, and a projector
// held between its wake-up and its turn that waits again instead of stopping for good (and one the
// code before that fix stopped, started again by the operator's resumeProjection signal).
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { ObjectChange } from '../../activities/projection';
import { resumeProjectionSignal } from '../../contracts/payment';
import type { PayoutView } from '../../src/domain/payout';
import { connectTemporal } from '../../src/temporal/client';
import { temporalDataConverter } from '../../src/temporal/codec';
import { PROJECTOR_WAITS_AGAIN_PATCH } from '../../workflows/projection';
import { eventually } from '../helpers/api';
import { TEST_ENV } from '../helpers/test-env';
import { changeSignal, changeUpdate, holdSignal, releaseSignal, type ProbeInput } from './fixtures/projection-probe';

const TASK_QUEUE = 'projection-probe';

let client: Client;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
const recorded = new Map<string, ObjectChange[]>();

const PROBE_WORKFLOWS = path.join(__dirname, 'fixtures', 'projection-probe.ts');

/**
 * A worker of the probe workflow whose recordChange only records its calls. `patches: false`
 * bundles it with an SDK whose patched() is always false: the code as it was before any patch.
 */
function probeWorker(taskQueue: string, options: { maxCachedWorkflows?: number; patches?: false } = {}): Promise<Worker> {
  const beforePatches = path.join(__dirname, 'fixtures', 'workflow-before-patches.ts');
  return Worker.create({
    connection: nativeConnection,
    taskQueue,
    maxCachedWorkflows: options.maxCachedWorkflows,
    dataConverter: temporalDataConverter(TEST_ENV.codecKeys),
    workflowsPath: PROBE_WORKFLOWS,
    ...(options.patches === false ? {
      bundlerOptions: {
        webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, alias: { ...(config.resolve?.alias as object), '@temporalio/workflow$': beforePatches } } }),
      },
    } : {}),
    activities: {
      async recordChange(change: ObjectChange): Promise<void> {
        const id = change.object?.kind === 'payout' ? change.object.payout.id : change.events[0]?.objectId ?? '?';
        recorded.set(id, [...(recorded.get(id) ?? []), change]);
      },
    },
  });
}

beforeAll(async () => {
  const address = `127.0.0.1:${TEST_ENV.temporalPort}`;
  client = await connectTemporal({ temporalAddress: address, temporalNamespace: 'default', temporalCodec: TEST_ENV.codecKeys });
  nativeConnection = await NativeConnection.connect({ address });
  worker = await probeWorker(TASK_QUEUE);
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker.shutdown();
  await running;
  await nativeConnection.close();
  await client.connection.close();
});

function payout(): PayoutView {
  const id = `po_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  return {
    id, merchant_id: 'mer_probe', livemode: false, amount: 2500, currency: 'EUR', status: 'PENDING', merchant_reference: null,
    recipient: { first_name: 'Ana', last_name: 'Díaz', country: 'ES' }, destination: { brand: 'VISA', last4: '4242', country: 'US' },
    initiator_ip_address: '203.0.113.7', failure_code: null, failure_message: null, poll_attempts: 0, last_polled_at: null,
    created_at: 1, updated_at: 1, completed_at: null, version: 0,
  };
}

/** The promise's value, or `failure` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, failure: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(failure)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What each recordChange call carried: the projected version (or null), the event types, the cards. */
const turns = (id: string) => (recorded.get(id) ?? []).map((c) => ({
  version: c.object?.kind === 'payout' ? c.object.payout.version : null, events: c.events.map((e) => e.type), cards: c.shredCardTokens,
}));

it('one recordChange per turn: the snapshot, the events it shows and the cards no longer needed together', async () => {
  const input: ProbeInput = { payout: payout(), scenario: 'one-turn' };
  const result = await client.workflow.execute('ProjectionProbe', { taskQueue: TASK_QUEUE, workflowId: input.payout.id, args: [input] });
  expect(result).toBe(1);
  expect(turns(input.payout.id)).toEqual([{ version: 1, events: ['payout.succeeded'], cards: ['tok_probe'] }]);
});

it('stop waits for a handler that changes the object after it was called; the change is projected before its events', async () => {
  const input: ProbeInput = { payout: payout(), scenario: 'late-handler' };
  const handle = await client.workflow.start('ProjectionProbe', { taskQueue: TASK_QUEUE, workflowId: input.payout.id, args: [input] });
  const update = await handle.startUpdate(changeUpdate, { waitForStage: 'ACCEPTED' });
  // Accepted: the handler runs and the main body, woken in the same task, is in stop(). Once the
  // first projection (version 0) is written, the handler is let go.
  await eventually(async () => turns(input.payout.id), (t) => t.length === 1);
  await handle.signal(releaseSignal);
  const failure = 'the workflow did not end: the late change was never projected';
  expect(await within(update.result(), 20_000, failure)).toBe(1);
  expect(await within(handle.result(), 20_000, failure)).toBe(1);
  // While the handler waited for its projection, the projection went alone and the event followed.
  expect(turns(input.payout.id)).toEqual([
    { version: 0, events: [], cards: [] },
    { version: 1, events: [], cards: [] },
    { version: null, events: ['payout.succeeded'], cards: [] },
  ]);
}, 60_000);

/** The workflow tasks a run's history shows completed. */
async function completedTasks(handle: WorkflowHandle): Promise<number> {
  return (await handle.fetchHistory()).events?.filter((e) => e.workflowTaskCompletedEventAttributes).length ?? 0;
}

/** The patch markers a run recorded, by patch id, once its history replays on today's probe. */
async function replayedPatchMarkers(handle: WorkflowHandle): Promise<string[]> {
  const history = await handle.fetchHistory();
  await Worker.runReplayHistory({ workflowsPath: PROBE_WORKFLOWS, dataConverter: temporalDataConverter(TEST_ENV.codecKeys) }, history, handle.workflowId);
  return (history.events ?? []).flatMap((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
    .map((payload) => (JSON.parse(Buffer.from(payload.data!).toString('utf8')) as { id: string }).id);
}

/**
 * The race a Payment met: a refund report made the projection due and, in the same workflow task, a
 * refund update held it for its submission. The projector's condition held after the first signal,
 * the second held it before the projector ran. This starts a `held-after-due` probe (its first task
 * on today's code), then sends a change and a hold while no worker polls, so that both reach the
 * one task the next worker takes; without a workflow cache each worker takes its task from the task
 * queue, not from a sticky one.
 */
async function changeAndHoldInOneTask(input: ProbeInput, taskQueue: string): Promise<WorkflowHandle> {
  const first = await probeWorker(taskQueue, { maxCachedWorkflows: 0 });
  const handle = await first.runUntil(async () => {
    const started = await client.workflow.start('ProjectionProbe', { taskQueue, workflowId: input.payout.id, args: [input] });
    await eventually(async () => (await started.describe()).historyLength, (length) => length >= 4);
    return started;
  });
  await handle.signal(changeSignal);
  await handle.signal(holdSignal);
  return handle;
}

it('a projector held after it woke waits again: a change and a hold in one workflow task are projected once released', async () => {
  const taskQueue = `projection-probe-held-${randomUUID()}`;
  const input: ProbeInput = { payout: payout(), scenario: 'held-after-due' };
  const handle = await changeAndHoldInOneTask(input, taskQueue);
  const worker = await probeWorker(taskQueue, { maxCachedWorkflows: 0 });
  const result = await worker.runUntil(async () => {
    // Held: nothing is written until released.
    await eventually(() => completedTasks(handle), (n) => n >= 2);
    expect(turns(input.payout.id)).toEqual([]);
    await handle.signal(releaseSignal);
    return within(handle.result(), 20_000, 'the projector stopped: the change was never projected');
  });
  expect(result).toBe(1);
  // The main body waits for the projection, so the event follows in a turn of its own.
  expect(turns(input.payout.id)).toEqual([{ version: 1, events: [], cards: [] }, { version: null, events: ['payout.succeeded'], cards: [] }]);
  // The run took the patch's branch (the race happened), and its history replays.
  expect(await replayedPatchMarkers(handle)).toEqual([PROJECTOR_WAITS_AGAIN_PATCH]);
}, 90_000);

it('a projector the code before the patch stopped is started again by resumeProjection, on the code of today', async () => {
  const taskQueue = `projection-probe-resume-${randomUUID()}`;
  const input: ProbeInput = { payout: payout(), scenario: 'held-after-due' };
  const handle = await changeAndHoldInOneTask(input, taskQueue);
  // A worker with no patch taken (1.0.0's projector) takes the race: its projector stops for good,
  // and the release finds nobody to project it.
  const before = await probeWorker(taskQueue, { maxCachedWorkflows: 0, patches: false });
  await before.runUntil(async () => {
    await eventually(() => completedTasks(handle), (n) => n >= 2);
    await handle.signal(releaseSignal);
    await eventually(() => completedTasks(handle), (n) => n >= 3);
  });
  expect(turns(input.payout.id)).toEqual([]);
  // Today's code replays that stop (no marker in history), and the operator's signal starts the
  // projector again: the change, then its event, and the run ends.
  const today = await probeWorker(taskQueue, { maxCachedWorkflows: 0 });
  const result = await today.runUntil(async () => {
    await handle.signal(resumeProjectionSignal);
    return within(handle.result(), 20_000, 'resumeProjection did not start the projector again');
  });
  expect(result).toBe(1);
  expect(turns(input.payout.id)).toEqual([{ version: 1, events: [], cards: [] }, { version: null, events: ['payout.succeeded'], cards: [] }]);
  expect(await replayedPatchMarkers(handle)).toEqual([]);
}, 90_000);
