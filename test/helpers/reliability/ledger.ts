// What the clients of a run did and got, and the audit that holds the service to it afterwards:
// every object reaches the state the provider says it should, the read model equals the workflow's
// own state, the provider shows exactly one effect per object, and every same-key replay equals
// the first 2xx byte for byte. Problems are counted as lost, duplicated or wrong.
import type { Client } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { serializePaymentA } from '../../../src/representations/payment-a';
import { serializePayout } from '../../../src/representations/payout';
import { findPayment } from '../../../src/read-models/payments';
import { TEST_BOX } from '../payments';
import { findPayout } from '../../../src/read-models/payouts';
import { paymentQuery } from '../../../contracts/payment';
import { payoutQuery } from '../../../contracts/payout';
import { sandboxControl } from '../sandbox';
import type { Outcome } from './cards';
import { createUntilSettled, type Answer, type IdempotentCreate } from './client';

export type ObjectKind = 'payment' | 'refund' | 'payout';
export type ProblemCategory = 'lost' | 'duplicated' | 'wrong';

export interface TrackedObject {
  kind: ObjectKind;
  /** What the client did, e.g. `payment 4000000000003220 + 3DS authenticate`. */
  scenario: string;
  merchantId: string;
  create: IdempotentCreate;
  /** The first 2xx the client got for its create. */
  first: Answer;
  id: string;
  outcome: Outcome;
  /** Effects the provider must show for it: 0 when the service decides alone (an expired card). */
  providerEffects: 0 | 1;
  /** Why earlier attempts of the create were retried (status, `in_use`, `connection`). */
  retries: string[];
  startedAt: number;
  settledAt: number;
}

export interface Problem {
  category: ProblemCategory;
  subject: string;
  detail: string;
}

/** Everything one run created, plus the requests that never got their 2xx. */
export class Ledger {
  readonly objects: TrackedObject[] = [];
  readonly problems: Problem[] = [];

  track(object: TrackedObject): TrackedObject {
    this.objects.push(object);
    return object;
  }

  problem(category: ProblemCategory, subject: string, detail: string): void {
    this.problems.push({ category, subject, detail });
  }

  /** Records the client's create; a create that never got a 2xx is lost, a refused one is wrong. */
  settle(create: IdempotentCreate, answer: Answer | null, scenario: string): answer is Answer {
    if (answer === null) {
      this.problem('lost', scenario, `no 2xx before the deadline (key ${create.idempotencyKey})`);
      return false;
    }
    if (answer.status < 200 || answer.status >= 300) {
      this.problem('wrong', scenario, `answered ${answer.status} ${answer.text.slice(0, 300)}`);
      return false;
    }
    return true;
  }
}

export interface AuditReport {
  objects: number;
  lost: number;
  duplicated: number;
  wrong: number;
  problems: Problem[];
  /** Creates that needed more than one attempt, and why. */
  retriedCreates: number;
  retryReasons: Record<string, number>;
}

const TERMINAL: Record<ObjectKind, string[]> = {
  payment: ['SUCCEEDED', 'FAILED', 'EXPIRED'],
  refund: ['SUCCEEDED', 'FAILED'],
  payout: ['SUCCEEDED', 'FAILED'],
};
const TABLE: Record<ObjectKind, string> = { payment: 'payments', refund: 'refunds', payout: 'payouts' };

interface Row {
  id: string;
  status: string;
  failure_code: string | null;
}

interface ProviderRecord {
  id: string;
  reference: string;
  status: string;
}

interface ProviderRecords {
  authorizations: ProviderRecord[];
  refunds: ProviderRecord[];
  payouts: ProviderRecord[];
}

const PROVIDER_COLLECTION: Record<ObjectKind, keyof ProviderRecords> = { payment: 'authorizations', refund: 'refunds', payout: 'payouts' };
const PROVIDER_PATH: Record<ObjectKind, string> = { payment: '/v1/authorizations/', refund: '/v1/refunds/', payout: '/v1/payouts/' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sandboxJson<T>(path: string): Promise<T> {
  const res = await sandboxControl(path);
  if (res.status !== 200) throw new Error(`sandbox ${path} answered ${res.status}`);
  return (await res.json()) as T;
}

export function allProviderRecords(): Promise<ProviderRecords> {
  return sandboxJson<ProviderRecords>('/_sandbox/records');
}

/** The outcome a provider record implies, or null while the provider itself has not decided. */
function providerOutcome(kind: ObjectKind, record: Record<string, unknown>): Outcome | null {
  const status = record.status;
  if (status === 'succeeded') return { status: 'SUCCEEDED', failureCode: null };
  if (kind === 'payment' && status === 'declined') return { status: 'FAILED', failureCode: String(record.decline_code) };
  if (kind !== 'payment' && (status === 'failed' || status === 'rejected')) return { status: 'FAILED', failureCode: String(record.failure_code) };
  return null;
}

async function rowsOf(dataSource: DataSource, kind: ObjectKind, ids: string[]): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const found: Row[] = await dataSource.query(`SELECT id, status, failure_code FROM ${TABLE[kind]} WHERE id IN (${chunk.map(() => '?').join(',')})`, chunk);
    for (const row of found) rows.set(row.id, row);
  }
  return rows;
}

async function currentRows(dataSource: DataSource, objects: TrackedObject[]): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  for (const kind of ['payment', 'refund', 'payout'] as const) {
    const ids = objects.filter((o) => o.kind === kind).map((o) => o.id);
    if (ids.length) for (const [id, row] of await rowsOf(dataSource, kind, ids)) rows.set(id, row);
  }
  return rows;
}

/** Waits until every object's read model shows a terminal status (or the deadline passes). */
async function converge(dataSource: DataSource, objects: TrackedObject[], timeoutMs: number): Promise<Map<string, Row>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await currentRows(dataSource, objects);
    const open = objects.filter((o) => !TERMINAL[o.kind].includes(rows.get(o.id)?.status ?? ''));
    if (open.length === 0 || Date.now() > deadline) return rows;
    await sleep(500);
  }
}

/** The workflow's own view: a query while it runs, its result once it has finished. */
async function workflowState<T>(client: Client, workflowId: string, query: QueryDefinition<T>): Promise<T> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  if (description.status.name === 'RUNNING') return handle.query(query);
  return (await handle.result()) as T;
}

/** Read model and workflow compared as the merchant sees them, plus the projected version. */
async function readModelMismatch(dataSource: DataSource, client: Client, object: TrackedObject, paymentOf: Map<string, string>): Promise<string | null> {
  const scope = { merchantId: object.merchantId, livemode: false };
  if (object.kind === 'payout') {
    const [model, workflow] = await Promise.all([findPayout(dataSource, scope, object.id), workflowState(client, object.id, payoutQuery)]);
    if (!model) return 'no read model row';
    const a = JSON.stringify(serializePayout(model));
    const b = JSON.stringify(serializePayout(workflow));
    return a === b && model.version === workflow.version ? null : `read model v${model.version} ${a} != workflow v${workflow.version} ${b}`;
  }
  const paymentId = object.kind === 'payment' ? object.id : paymentOf.get(object.id)!;
  const [model, workflow] = await Promise.all([findPayment(dataSource, TEST_BOX, scope, paymentId), workflowState(client, paymentId, paymentQuery)]);
  if (!model) return 'no read model row';
  const a = JSON.stringify(serializePaymentA(model));
  const b = JSON.stringify(serializePaymentA(workflow));
  if (a !== b || model.version !== workflow.version) return `read model v${model.version} ${a} != workflow v${workflow.version} ${b}`;
  if (object.kind === 'refund') {
    const progress = await finalResult<{ status: string }>(client, object.id);
    const shown = workflow.refunds.find((r) => r.id === object.id)?.status;
    if (progress?.status !== shown) return `RefundWorkflow ended ${progress?.status ?? 'not at all'}, its Payment shows ${shown}`;
  }
  return null;
}

/**
 * Whether a workflow that should have ended by now still runs: a Payment's ends when it FAILED or
 * EXPIRED (a SUCCEEDED one stays open for its refund window), a Payout's when it is final.
 * (RefundWorkflows are held to their result in readModelMismatch.)
 */
async function stillRunning(client: Client, object: TrackedObject, status: string): Promise<boolean> {
  const shouldEnd = (object.kind === 'payment' && status !== 'SUCCEEDED') || object.kind === 'payout';
  return shouldEnd && (await finalResult(client, object.id)) === null;
}

/** A mismatch that outlasts a few seconds: a projection may trail its workflow by one activity. */
async function settledMismatch(compare: () => Promise<string | null>, attempts = 5): Promise<string | null> {
  let mismatch = await compare();
  for (let attempt = 1; mismatch !== null && attempt < attempts; attempt += 1) {
    await sleep(1000);
    mismatch = await compare();
  }
  return mismatch;
}

/** A workflow's result, waiting a little for one that is finishing (a RefundWorkflow that just reported). */
async function finalResult<T>(client: Client, workflowId: string, timeoutMs = 30_000): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), timeoutMs); });
  try {
    return await Promise.race([client.workflow.getHandle(workflowId).result() as Promise<T>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface AuditOptions {
  dataSource: DataSource;
  temporal: Client;
  baseUrl: () => string;
  /** Merchants used by this run alone: any object of theirs the clients did not get is a duplicate. */
  dedicatedMerchants?: string[];
  convergeTimeoutMs?: number;
}

/** Problems keyed per object, so one object counts at most once per category. */
class ProblemSet {
  private readonly seen = new Set<string>();
  readonly list: Problem[] = [];

  add(category: ProblemCategory, subject: string, detail: string): void {
    const key = `${category}:${subject}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push({ category, subject, detail });
  }

  count(category: ProblemCategory): number {
    return this.list.filter((p) => p.category === category).length;
  }
}

export async function auditLedger(ledger: Ledger, options: AuditOptions): Promise<AuditReport> {
  const { dataSource, temporal } = options;
  const objects = ledger.objects;
  const problems = new ProblemSet();
  // The client's own findings name no object; each counts once.
  for (const p of ledger.problems) problems.add(p.category, `${p.subject}: ${p.detail}`, p.detail);

  const rows = await converge(dataSource, objects, options.convergeTimeoutMs ?? 180_000);
  const records = await allProviderRecords();
  const paymentOf = new Map<string, string>();
  for (const object of objects) {
    if (object.kind === 'refund') paymentOf.set(object.id, (object.create.body as { payment_id: string }).payment_id);
  }

  for (const object of objects) {
    const subject = `${object.kind} ${object.id} (${object.scenario})`;
    const row = rows.get(object.id);
    if (!row) {
      problems.add('lost', subject, 'no read model row');
      continue;
    }
    if (!TERMINAL[object.kind].includes(row.status)) {
      problems.add('lost', subject, `still ${row.status}: never reached its final state`);
      continue;
    }
    if (row.status !== object.outcome.status || row.failure_code !== object.outcome.failureCode) {
      problems.add('wrong', subject, `ended ${row.status}/${row.failure_code}, expected ${object.outcome.status}/${object.outcome.failureCode}`);
    }
    const effects = records[PROVIDER_COLLECTION[object.kind]].filter((r) => r.reference === object.id);
    if (effects.length > object.providerEffects) problems.add('duplicated', subject, `${effects.length} provider effects`);
    if (effects.length < object.providerEffects) problems.add('wrong', subject, 'the provider never saw it');
    if (effects.length === 1) {
      const detail = await sandboxJson<Record<string, unknown>>(`${PROVIDER_PATH[object.kind]}${effects[0]!.id}`);
      const implied = providerOutcome(object.kind, detail);
      if (!implied || implied.status !== row.status || implied.failureCode !== row.failure_code) {
        problems.add('wrong', subject, `provider says ${String(detail.status)}/${String(detail.decline_code ?? detail.failure_code ?? null)}, service shows ${row.status}/${row.failure_code}`);
      }
    }
    const mismatch = await settledMismatch(() => readModelMismatch(dataSource, temporal, object, paymentOf));
    if (mismatch) problems.add('wrong', subject, mismatch);
    if (await stillRunning(temporal, object, row.status)) problems.add('wrong', subject, `its workflow is still running, though the ${object.kind} is ${row.status}`);
  }

  await checkReplays(objects, options.baseUrl, problems);
  if (options.dedicatedMerchants?.length) await checkNoExtraObjects(dataSource, objects, options.dedicatedMerchants, problems);
  for (const orphan of await newOrphanEffects(dataSource, records)) problems.add('duplicated', orphan, 'a provider effect for no object of the service');

  const retryReasons: Record<string, number> = {};
  for (const object of objects) for (const reason of object.retries) retryReasons[reason] = (retryReasons[reason] ?? 0) + 1;
  return {
    objects: objects.length,
    lost: problems.count('lost'),
    duplicated: problems.count('duplicated'),
    wrong: problems.count('wrong'),
    problems: problems.list,
    retriedCreates: objects.filter((o) => o.retries.length > 0).length,
    retryReasons,
  };
}

/** The final same-key replay of every create must be the first 2xx, byte for byte. */
async function checkReplays(objects: TrackedObject[], baseUrl: () => string, problems: ProblemSet): Promise<void> {
  const queue = [...objects];
  const replayOne = async () => {
    for (let object = queue.shift(); object; object = queue.shift()) {
      const subject = `${object.kind} ${object.id} (${object.scenario})`;
      const { answer } = await createUntilSettled(baseUrl, object.create, 60_000);
      if (!answer) problems.add('lost', subject, 'the same-key replay never got an answer');
      else if (answer.text !== object.first.text || answer.status !== object.first.status) {
        problems.add('wrong', subject, `replay ${answer.status} ${answer.text.slice(0, 200)} != first ${object.first.status} ${object.first.text.slice(0, 200)}`);
      } else if (answer.headers.get('idempotent-replayed') !== 'true') {
        problems.add('wrong', subject, 'replay not marked Idempotent-Replayed: true');
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, replayOne));
}

async function checkNoExtraObjects(dataSource: DataSource, objects: TrackedObject[], merchants: string[], problems: ProblemSet): Promise<void> {
  const known = new Set(objects.map((o) => o.id));
  const marks = merchants.map(() => '?').join(',');
  const rows: Array<{ id: string; kind: string }> = await dataSource.query(
    `SELECT id, 'payment' AS kind FROM payments WHERE merchant_id IN (${marks})
     UNION ALL SELECT id, 'refund' AS kind FROM refunds WHERE merchant_id IN (${marks})
     UNION ALL SELECT id, 'payout' AS kind FROM payouts WHERE merchant_id IN (${marks})`,
    [...merchants, ...merchants, ...merchants],
  );
  for (const row of rows) if (!known.has(row.id)) problems.add('duplicated', `${row.kind} ${row.id}`, 'an object no client was given');
}

const reportedOrphans = new Set<string>();

/** Provider effects whose reference is no object of the service (each reported once per suite). */
async function newOrphanEffects(dataSource: DataSource, records: ProviderRecords): Promise<string[]> {
  const references = [...records.authorizations, ...records.refunds, ...records.payouts].map((r) => r.reference);
  const known = new Set<string>();
  for (const kind of ['payment', 'refund', 'payout'] as const) {
    const ids = references.filter((id) => id.startsWith(kind === 'payment' ? 'pay_' : kind === 'refund' ? 'ref_' : 'po_'));
    for (const id of (await rowsOf(dataSource, kind, ids)).keys()) known.add(id);
  }
  const orphans = references.filter((id) => !known.has(id) && !reportedOrphans.has(id));
  for (const id of orphans) reportedOrphans.add(id);
  return orphans.map((id) => `provider reference ${id}`);
}

/** Fails with the list of problems (an empty list is the pass). */
export function expectClean(report: AuditReport): void {
  expect(report.problems).toEqual([]);
}

/** The objects of a run and the problems found with them, restricted to some of the objects. */
export function problemsAmong(report: AuditReport, objects: TrackedObject[]): Record<ProblemCategory, number> {
  const ids = objects.map((o) => o.id);
  const counts: Record<ProblemCategory, number> = { lost: 0, duplicated: 0, wrong: 0 };
  for (const problem of report.problems) {
    if (ids.some((id) => problem.subject.includes(id))) counts[problem.category] += 1;
  }
  return counts;
}
