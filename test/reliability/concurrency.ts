// Concurrency: same-key races on every create operation (one object, one provider effect, one
// answer), concurrent refunds against one Payment (property-based: never more than its amount),
// and concurrent creates of several merchants with the same Idempotency-Keys (nothing crosses).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { TestMerchant } from '../helpers/api';
import { SUCCEEDS } from '../helpers/reliability/cards';
import { COUNTS, LONG_MODE } from '../helpers/reliability/config';
import { createUntilSettled, getUntil, newCreate, send, type Answer, type IdempotentCreate } from '../helpers/reliability/client';
import { recordFigure, recordMeasurement, sectionDone } from '../helpers/reliability/figures';
import { Ledger, expectClean, problemsAmong, type ObjectKind, type TrackedObject } from '../helpers/reliability/ledger';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import {
  hostedPaymentBody, merchantClient, newMerchant, paymentBody, payoutBody, refundBody, submitHostedCard, succeededPayment, trackCreate, type MerchantClient,
} from '../helpers/reliability/workload';

export const CONCURRENCY = 'concurrency';

const HOSTED_SUBMITTERS = 20;

const isInUse = (answer: Answer) => answer.status === 409 && answer.json?.error?.code === 'idempotency_key_in_use';

/**
 * `concurrency` identical requests (same key, same body) at once. Each answer must be the 201 (all
 * byte-identical) or 409 idempotency_key_in_use; the object is tracked for the audit.
 */
async function sameKeyRace(client: MerchantClient, kind: ObjectKind, path: string, body: unknown): Promise<TrackedObject | null> {
  const create: IdempotentCreate = newCreate(path, client.key, body);
  const scenario = `same-key race on POST ${path}`;
  const startedAt = Date.now();
  const answers = await Promise.all(Array.from({ length: COUNTS.sameKeyConcurrency }, () => send(client.baseUrl(), {
    method: 'POST', path, key: create.key, body, idempotencyKey: create.idempotencyKey,
  }).catch(() => null)));
  const odd = answers.filter((a) => !a || !(a.status === 201 || isInUse(a)));
  if (odd.length) client.ledger.problem('wrong', scenario, `answers other than 201 or 409 in use: ${odd.map((a) => a?.status ?? 'connection').join(', ')}`);
  const created = answers.filter((a): a is Answer => a?.status === 201);
  if (new Set(created.map((a) => a.text)).size > 1) client.ledger.problem('duplicated', scenario, 'different 201 bodies for one key');
  let first = created[0] ?? null;
  if (!first) {
    const settled = await createUntilSettled(client.baseUrl, create);
    if (!client.ledger.settle(create, settled.answer, scenario)) return null;
    first = settled.answer;
  }
  return client.ledger.track({
    kind, scenario, merchantId: client.merchantId, create, first, id: first.json.id, outcome: SUCCEEDS,
    providerEffects: 1, retries: [], startedAt, settledAt: Date.now(),
  });
}

/** A hosted payment page submitted by many browsers at once: one authorization. */
async function hostedSubmissionRace(client: MerchantClient, hosted: TrackedObject): Promise<void> {
  const pageUrl: string = hosted.first.json.next_action.redirect_url;
  const answers = await Promise.all(Array.from({ length: HOSTED_SUBMITTERS }, () => submitHostedCard(pageUrl, '4242424242424242')));
  const statuses = answers.map((a) => a.status);
  if (!statuses.includes(303) || statuses.some((s) => s >= 500 && s !== 503)) {
    client.ledger.problem('wrong', `hosted page ${hosted.id}`, `concurrent submissions answered ${statuses.join(', ')}`);
  }
}

/** Refunds of `amounts` sent at once against one SUCCEEDED Payment of `amount`. */
async function refundRace(client: MerchantClient, amount: number, amounts: number[]): Promise<void> {
  const payment = await succeededPayment(client, 'visa', 'concurrent refunds', amount);
  if (!payment) throw new Error('the payment to refund did not succeed');
  const creates = amounts.map((a) => newCreate('/v1/refunds', client.key, refundBody(payment.id, a)));
  const settled = await Promise.all(creates.map((create) => createUntilSettled(client.baseUrl, create)));
  const accepted: number[] = [];
  const rejected: number[] = [];
  for (const [index, { answer }] of settled.entries()) {
    const create = creates[index]!;
    if (answer?.status === 201) {
      accepted.push(amounts[index]!);
      client.ledger.track({
        kind: 'refund', scenario: `one of ${amounts.length} concurrent refunds`, merchantId: client.merchantId, create, first: answer,
        id: answer.json.id, outcome: SUCCEEDS, providerEffects: 1, retries: [], startedAt: Date.now(), settledAt: Date.now(),
      });
    } else if (answer?.status === 422 && answer.json?.error?.code === 'amount_exceeds_refundable') {
      rejected.push(amounts[index]!);
    } else {
      client.ledger.problem('wrong', `refund race on ${payment.id}`, `answered ${answer?.status} ${answer?.text.slice(0, 200)}`);
    }
  }
  const total = accepted.reduce((sum, a) => sum + a, 0);
  if (total > amount) client.ledger.problem('wrong', `refund race on ${payment.id}`, `accepted ${total} of a ${amount} payment`);
  // A refund turned away while its amount was still free would be a false rejection.
  const falselyRejected = rejected.filter((a) => a <= amount - total);
  if (falselyRejected.length) client.ledger.problem('wrong', `refund race on ${payment.id}`, `rejected ${falselyRejected.join(', ')} with ${amount - total} still refundable`);
  const final = await getUntil(client.baseUrl, `/v1/payments/${payment.id}`, client.key,
    (answer) => answer.status === 200 && answer.json.refunds.every((r: { status: string }) => r.status === 'SUCCEEDED' || r.status === 'FAILED'));
  if (final?.json.amount_refunded !== total || final?.json.amount_refundable !== amount - total) {
    client.ledger.problem('wrong', `refund race on ${payment.id}`, `payment shows refunded ${final?.json.amount_refunded}, refundable ${final?.json.amount_refundable}; accepted ${total} of ${amount}`);
  }
  if (client.ledger.problems.length) throw new Error(JSON.stringify(client.ledger.problems));
}

interface MerchantRun {
  merchant: TestMerchant;
  payments: string[];
  payouts: string[];
}

async function listIds(client: MerchantClient, path: string): Promise<string[]> {
  const ids: string[] = [];
  for (let cursor: string | null = null; ;) {
    const page = await getUntil(client.baseUrl, `${path}?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, client.key, (a) => a.status === 200);
    const data: Array<{ id: string }> = page?.json.data ?? [];
    ids.push(...data.map((o) => o.id));
    if (!page?.json.has_more || data.length === 0) return ids;
    cursor = data[data.length - 1]!.id;
  }
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

export function concurrencySection(stack: ReliabilityStack): void {
  describe(CONCURRENCY, () => {
    it(`${COUNTS.sameKeyConcurrency} concurrent same-key creates on every create operation: one object, one provider effect`, async () => {
      const merchant = await newMerchant(stack, 'Race Shop');
      const ledger = new Ledger();
      const client = merchantClient(() => stack.apiProcessUrl, merchant, ledger);
      const byPath = new Map<string, TrackedObject[]>();
      const note = (path: string, object: TrackedObject | null) => { if (object) byPath.set(path, [...(byPath.get(path) ?? []), object]); };
      for (let round = 0; round < COUNTS.sameKeyRounds; round += 1) {
        const toRefund = await succeededPayment(client, 'visa', 'same-key refund race');
        note('/v1/payments', await sameKeyRace(client, 'payment', '/v1/payments', paymentBody('4242424242424242')));
        const hosted = await sameKeyRace(client, 'payment', '/v1/payments/hpp', hostedPaymentBody());
        note('/v1/payments/hpp', hosted);
        if (hosted) await hostedSubmissionRace(client, hosted);
        if (toRefund) note('/v1/refunds', await sameKeyRace(client, 'refund', '/v1/refunds', refundBody(toRefund.id, 1000)));
        note('/v1/payouts', await sameKeyRace(client, 'payout', '/v1/payouts', payoutBody('5555555555554444')));
      }
      const report = await stack.audit(ledger, [merchant]);
      for (const path of ['/v1/payments', '/v1/payments/hpp', '/v1/refunds', '/v1/payouts']) {
        const objects = byPath.get(path) ?? [];
        const extra = path === '/v1/payments/hpp' ? ` (+ ${HOSTED_SUBMITTERS} concurrent hosted page submissions each)` : '';
        recordFigure({
          section: CONCURRENCY, fault: `${COUNTS.sameKeyConcurrency} concurrent same-key POST ${path}${extra}`,
          tried: COUNTS.sameKeyRounds * COUNTS.sameKeyConcurrency, objects: objects.length, ...problemsAmong(report, objects),
        });
      }
      expectClean(report);
    }, LONG_MODE ? 1_200_000 : 300_000);

    it(`concurrent refunds against one Payment never exceed its amount (fast-check, seeds ${COUNTS.refundSeeds.join(', ')})`, async () => {
      const merchant = await newMerchant(stack, 'Refund Race Shop');
      const ledger = new Ledger();
      const client = merchantClient(() => stack.apiProcessUrl, merchant, ledger);
      const property = () => fc.asyncProperty(
        fc.integer({ min: 500, max: 20_000 }).chain((amount) => fc.tuple(
          fc.constant(amount),
          fc.array(fc.integer({ min: 1, max: amount + 500 }), { minLength: 2, maxLength: 8 }),
        )),
        async ([amount, amounts]) => refundRace(client, amount, amounts),
      );
      // The seeds run side by side: each run races on a Payment of its own.
      await Promise.all(COUNTS.refundSeeds.map((seed) => fc.assert(property(), { seed, numRuns: COUNTS.refundRunsPerSeed, endOnFailure: true })));
      const attempts = COUNTS.refundSeeds.length * COUNTS.refundRunsPerSeed;
      const report = await stack.audit(ledger, [merchant]);
      const refunds = ledger.objects.filter((o) => o.kind === 'refund');
      recordFigure({
        section: CONCURRENCY, fault: `2-8 concurrent refunds of random amounts against one Payment (${attempts} Payments)`,
        tried: attempts, objects: report.objects, lost: report.lost, duplicated: report.duplicated, wrong: report.wrong,
      });
      recordMeasurement(CONCURRENCY, `${refunds.length} refunds accepted across ${attempts} concurrent refund races; none took a Payment past its amount`);
      expectClean(report);
    }, LONG_MODE ? 1_200_000 : 300_000);

    it(`${COUNTS.crossMerchants} merchants creating at once with the same Idempotency-Keys never see each other's objects`, async () => {
      const ledger = new Ledger();
      const sharedKeys = Array.from({ length: COUNTS.crossCreatesPerMerchant }, () => randomUUID());
      const merchants = await Promise.all(Array.from({ length: COUNTS.crossMerchants }, (_, i) => newMerchant(stack, `Cross Shop ${i}`)));
      // Every merchant is a client of its own, all at once; each sends its creates one after another.
      const runs: MerchantRun[] = await Promise.all(merchants.map(async (merchant, m) => {
        const client = merchantClient(() => stack.apiProcessUrl, merchant, ledger);
        const run: MerchantRun = { merchant, payments: [], payouts: [] };
        for (const [k, key] of sharedKeys.entries()) {
          const payment = await trackCreate(client, 'payment', paymentBody('4242424242424242', { amount: 1000 + 10 * m + k }), `merchant ${m} payment`, SUCCEEDS, { idempotencyKey: key });
          const payout = await trackCreate(client, 'payout', payoutBody('4242424242424242', 1000 + 10 * m + k), `merchant ${m} payout`, SUCCEEDS, { idempotencyKey: key });
          if (payment) run.payments.push(payment.id);
          if (payout) run.payouts.push(payout.id);
        }
        return run;
      }));

      let reads = 0;
      for (const run of runs) {
        const client = merchantClient(() => stack.apiProcessUrl, run.merchant, ledger);
        const subject = `merchant ${run.merchant.merchantId}`;
        if (!sameSet(await listIds(client, '/v1/payments'), run.payments)) ledger.problem('wrong', subject, 'its payment list is not exactly its own payments');
        if (!sameSet(await listIds(client, '/v1/payouts'), run.payouts)) ledger.problem('wrong', subject, 'its payout list is not exactly its own payouts');
        for (const other of runs.filter((r) => r !== run)) {
          for (const [path, id] of [...other.payments.map((id) => ['/v1/payments/', id]), ...other.payouts.map((id) => ['/v1/payouts/', id])] as const) {
            reads += 1;
            const answer = await getUntil(client.baseUrl, `${path}${id}`, client.key, () => true);
            if (answer?.status !== 404) ledger.problem('wrong', `${subject} reading ${id}`, `answered ${answer?.status}`);
          }
        }
        reads += 2;
      }
      const report = await stack.audit(ledger, merchants);
      recordFigure({
        section: CONCURRENCY, fault: `concurrent creates of ${COUNTS.crossMerchants} merchants sharing Idempotency-Keys, then ${reads} lists and cross reads`,
        tried: ledger.objects.length, objects: report.objects, lost: report.lost, duplicated: report.duplicated, wrong: report.wrong,
      });
      sectionDone(CONCURRENCY);
      expectClean(report);
    }, LONG_MODE ? 1_200_000 : 300_000);
  });
}
