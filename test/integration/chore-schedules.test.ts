// The periodic chores run once per cluster as Temporal Schedules that the workers register: one
// schedule each however many workers start, an operator's pause survives a restart, each run's
// result holds its counts, and the API no longer purges on a timer of its own.
import { randomBytes, randomUUID } from 'node:crypto';
import { ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { RunningApi } from '../../src/api/server';
import { Event, IdempotencyRecord } from '../../src/db/entities';
import { newId } from '../../src/domain/ids';
import { choreSchedules, registerChoreSchedules, type ChoreSettings } from '../../src/temporal/chore-schedules';
import { clientOn } from '../../src/temporal/client';
import type { CodecKeyRing } from '../../src/config';
import { cvcMaxAgeSeconds } from '../../src/vault/card-vault';
import { startTestApi, testConfig } from '../helpers/api';
import { triggerSchedule } from '../helpers/schedules';
import { startWorkerProcess } from '../helpers/temporal';
import { TEST_ENV } from '../helpers/test-env';

let api: RunningApi;
let client: Client;
/** The settings the suite's worker registers with (test/helpers/test-env.ts workerEnv). */
const settings: ChoreSettings = testConfig({ vaultSweepSeconds: 1 });
const IDS = ['chore-idempotency-purge', 'chore-event-purge', 'chore-cvc-sweep'];
const nowSeconds = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  api = await startTestApi({ eventPurgeIntervalSeconds: 1 });
  client = api.deps.temporal;
});
afterAll(async () => { await api.close(); });

async function insertEvent(createdAt: number): Promise<string> {
  const id = newId('event');
  await api.deps.dataSource.getRepository(Event).insert({
    id, merchant_id: 'mer_chores', livemode: false, type: 'payment.succeeded', object_id: `pay_${'0'.repeat(24)}`,
    payload: '{}', payload_b: null, endpoint: null, created_at: createdAt, relay_lease_until_ms: null,
  });
  return id;
}

/** Triggers the schedule now and answers the result of the run that trigger started. */
async function runNow<T>(scheduleId: string, overlap?: ScheduleOverlapPolicy): Promise<T> {
  const run = await triggerSchedule(client, scheduleId, overlap);
  expect(run.workflowId.startsWith(scheduleId)).toBe(true);
  return client.workflow.getHandle(run.workflowId, run.runId).result() as Promise<T>;
}

it('registering again (another worker, a restart) keeps one schedule per chore, with the settings\' intervals', async () => {
  // The suite's worker registered them at its start; two more registrations at once, as two workers starting.
  await Promise.all([registerChoreSchedules(client, settings), registerChoreSchedules(client, settings)]);
  const listed: string[] = [];
  for await (const schedule of client.schedule.list()) if (schedule.scheduleId.startsWith('chore-')) listed.push(schedule.scheduleId);
  expect(listed.sort()).toEqual([...IDS].sort());
  const intervals = await Promise.all(IDS.map(async (id) => (await client.schedule.getHandle(id).describe()).spec.intervals?.map((i) => i.every)));
  expect(intervals).toEqual([[3600_000], [settings.eventPurgeIntervalSeconds * 1000], [1000]]);
  const types = await Promise.all(IDS.map(async (id) => (await client.schedule.getHandle(id).describe()).action.workflowType));
  expect(types).toEqual(['IdempotencyPurgeWorkflow', 'EventPurgeWorkflow', 'CvcSweepWorkflow']);
});

it('a schedule an operator paused stays paused when a worker registers it again', async () => {
  const handle = client.schedule.getHandle('chore-idempotency-purge');
  await handle.pause('maintenance');
  try {
    await registerChoreSchedules(client, settings);
    const described = await handle.describe();
    expect(described.state.paused).toBe(true);
    expect(described.state.note).toBe('maintenance');
  } finally {
    await handle.unpause();
  }
});

it('a triggered event purge deletes the events past retention and its result says how many', async () => {
  const old = await insertEvent(nowSeconds() - (settings.eventRetentionDays + 1) * 86_400);
  const recent = await insertEvent(nowSeconds() - 86_400);
  const result = await runNow<{ deleted: number }>('chore-event-purge');
  expect(result.deleted).toBeGreaterThanOrEqual(1);
  const repo = api.deps.dataSource.getRepository(Event);
  expect(await repo.findOneBy({ id: old })).toBeNull();
  expect(await repo.findOneBy({ id: recent })).not.toBeNull();
  await repo.delete({ id: recent });
});

it('a triggered idempotency purge deletes the expired records and its result says how many', async () => {
  const key = randomUUID();
  const repo = api.deps.dataSource.getRepository(IdempotencyRecord);
  await repo.insert({
    api_key_id: 'key_chores', operation: 'payments.create', idempotency_key: key, fingerprint: 'f', object_id: 'pay_chores', state: 'completed' as never,
    response_status: 201, response_body: '{}', locked_until_ms: 0, created_at: nowSeconds() - 100, expires_at: nowSeconds() - 1,
  });
  const result = await runNow<{ deleted: number }>('chore-idempotency-purge');
  expect(result.deleted).toBeGreaterThanOrEqual(1);
  expect(await repo.findOneBy({ idempotency_key: key })).toBeNull();
});

it('each CVC sweep reads from where the previous run stopped, and says what it forgot', async () => {
  type Sweep = { forgotten: number; since: number; cutoff: number };
  // The chore's own action on a schedule of its own that never comes due in the test: the suite's
  // 1-second sweep, and other suites' triggers, would otherwise run in between.
  const chore = choreSchedules(settings).find((schedule) => schedule.id === 'chore-cvc-sweep')!;
  const scheduleId = `test-cvc-sweep-${randomUUID()}`;
  const handle = await client.schedule.create({
    scheduleId, spec: { intervals: [{ every: '1 hour' }] }, action: { ...chore.action, workflowId: scheduleId }, policies: { overlap: ScheduleOverlapPolicy.SKIP },
  });
  try {
    const first = await runNow<Sweep>(scheduleId, ScheduleOverlapPolicy.BUFFER_ONE);
    expect(first.since).toBe(0);
    // Buffered, the second run starts once the schedule has seen the first complete, with its result.
    const second = await runNow<Sweep>(scheduleId, ScheduleOverlapPolicy.BUFFER_ONE);
    expect(second).toEqual({ forgotten: expect.any(Number), since: first.cutoff, cutoff: expect.any(Number) });
    expect(Math.abs(second.cutoff - (nowSeconds() - cvcMaxAgeSeconds(TEST_ENV.actionTtlSeconds)))).toBeLessThanOrEqual(5);
    expect(second.since).toBeLessThanOrEqual(second.cutoff);
  } finally {
    await handle.delete();
  }
});

it('the API purges nothing on a timer of its own', async () => {
  // This API was started with a 1-second event purge interval; the schedule's is an hour.
  const old = await insertEvent(nowSeconds() - (settings.eventRetentionDays + 1) * 86_400);
  await new Promise((r) => setTimeout(r, 2500));
  expect(await api.deps.dataSource.getRepository(Event).findOneBy({ id: old })).not.toBeNull();
  await api.deps.dataSource.getRepository(Event).delete({ id: old });
});

it('a schedule written under a key this process\'s ring lacks is left as it is, and the start goes on', async () => {
  const retired: CodecKeyRing = { currentKeyId: 'retired', keys: { retired: randomBytes(32).toString('hex') } };
  const other = clientOn(client.connection, { temporalAddress: '', temporalNamespace: client.options.namespace, temporalCodec: retired });
  for (const id of IDS) await client.schedule.getHandle(id).delete();
  try {
    await registerChoreSchedules(other, settings);
    const unreadable: string[] = [];
    await expect(registerChoreSchedules(client, settings, (id) => unreadable.push(id))).resolves.toHaveLength(IDS.length);
    // The idempotency purge takes no arguments: nothing of it is encrypted, and it is updated.
    expect(unreadable.sort()).toEqual(['chore-cvc-sweep', 'chore-event-purge']);
  } finally {
    // The suite's own schedules again, readable with its key.
    for (const id of IDS) await client.schedule.getHandle(id).delete();
    await registerChoreSchedules(client, settings);
  }
});

it('a worker started with CHORE_SCHEDULES=off leaves the schedules as they are', async () => {
  const before = await Promise.all(IDS.map(async (id) => (await client.schedule.getHandle(id).describe()).action));
  const worker = await startWorkerProcess(`chores-off-${Date.now()}`, `chores-off-${Date.now()}`, { CHORE_SCHEDULES: 'off' });
  try {
    const after = await Promise.all(IDS.map(async (id) => (await client.schedule.getHandle(id).describe()).action));
    expect(after.map((a) => a.taskQueue)).toEqual(IDS.map(() => settings.taskQueue));
    expect(after).toEqual(before);
  } finally {
    await worker.stop();
  }
}, 180_000);
