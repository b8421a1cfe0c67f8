// The projection module every projecting workflow uses (workflows/projection.ts), driven by a probe
// workflow on a worker of this test with a recordChange activity that only records its calls: one
// activity per turn with the snapshot, its events and its cards, and a stop that waits for the
// handlers still running, so a late change is projected before the workflow ends, and a projector
// held between its wake-up and its turn that waits again instead of stopping for good.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { ObjectChange } from '../../activities/projection';
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

/** A worker of the probe workflow whose recordChange only records its calls. */
function probeWorker(taskQueue: string, maxCachedWorkflows?: number): Promise<Worker> {
  return Worker.create({
    connection: nativeConnection,
    taskQueue,
    maxCachedWorkflows,
    dataConverter: temporalDataConverter(TEST_ENV.codecKeys),
    workflowsPath: path.join(__dirname, 'fixtures', 'projection-probe.ts'),
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
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the workflow did not end: the late change was never projected')), 20_000));
  expect(await Promise.race([update.result(), timeout])).toBe(1);
  expect(await Promise.race([handle.result(), timeout])).toBe(1);
  // While the handler waited for its projection, the projection went alone and the event followed.
  expect(turns(input.payout.id)).toEqual([
    { version: 0, events: [], cards: [] },
    { version: 1, events: [], cards: [] },
    { version: null, events: ['payout.succeeded'], cards: [] },
  ]);
}, 60_000);

it('a projector held after it woke waits again: a change and a hold in one workflow task are projected once released', async () => {
  // The race a Payment met (a refund report making the projection due, and in the same task a
  // refund update holding it for its submission): the projector's condition held after the first
  // signal, the second held it before the projector ran, and it used to stop for good. Both signals
  // reach one task because no worker polls while they are sent; without a workflow cache the next
  // worker takes the task from the task queue, not from a sticky one.
  const taskQueue = `projection-probe-held-${randomUUID()}`;
  const input: ProbeInput = { payout: payout(), scenario: 'held-after-due' };
  const first = await probeWorker(taskQueue, 0);
  const handle = await first.runUntil(async () => {
    const started = await client.workflow.start('ProjectionProbe', { taskQueue, workflowId: input.payout.id, args: [input] });
    await eventually(async () => (await started.describe()).historyLength, (length) => length >= 4);
    return started;
  });
  await handle.signal(changeSignal);
  await handle.signal(holdSignal);
  const second = await probeWorker(taskQueue, 0);
  const result = await second.runUntil(async () => {
    // Held: nothing is written until released.
    await eventually(async () => (await handle.fetchHistory()).events?.filter((e) => e.workflowTaskCompletedEventAttributes).length ?? 0, (n) => n >= 2);
    expect(turns(input.payout.id)).toEqual([]);
    await handle.signal(releaseSignal);
    const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the projector stopped: the change was never projected')), 20_000));
    return Promise.race([handle.result(), timeout]);
  });
  expect(result).toBe(1);
  // The main body waits for the projection, so the event follows in a turn of its own.
  expect(turns(input.payout.id)).toEqual([{ version: 1, events: [], cards: [] }, { version: null, events: ['payout.succeeded'], cards: [] }]);
  // The run took the patch's branch: the race happened, and the history replays.
  const history = await handle.fetchHistory();
  const patches = (history.events ?? []).flatMap((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads ?? [])
    .map((payload) => (JSON.parse(Buffer.from(payload.data!).toString('utf8')) as { id: string }).id);
  expect(patches).toEqual([PROJECTOR_WAITS_AGAIN_PATCH]);
  await Worker.runReplayHistory({ workflowsPath: path.join(__dirname, 'fixtures', 'projection-probe.ts'), dataConverter: temporalDataConverter(TEST_ENV.codecKeys) }, history, input.payout.id);
}, 90_000);
