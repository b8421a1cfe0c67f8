// Hostile input: property-based fuzzing (fast-check) of every endpoint's body, headers, query and
// path. No answer may be a 5xx; every JSON error is a catalogue code in a valid envelope whose
// request_id is the Request-Id header; no body with a server-decided field is accepted; and a
// rejected request changes no state: afterwards the fuzzed merchant owns exactly the objects its
// 2xx answers named, and holds idempotency claims only for keys that reached the idempotency step.
import fc from 'fast-check';
import { adminOps } from '../helpers/api';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/domain/errors';
import { COUNTS, LONG_MODE } from '../helpers/reliability/config';
import { recordFigure, recordMeasurement, sectionDone } from '../helpers/reliability/figures';
import { describeRequest, fuzzRequest, sendRaw, type FuzzKeys, type FuzzRequest, type RawAnswer } from '../helpers/reliability/fuzz';
import { Ledger } from '../helpers/reliability/ledger';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import { hostedPaymentBody, merchantClient, newMerchant, paymentBody, payoutBody, refundBody, succeededPayment, trackCreate } from '../helpers/reliability/workload';
import { CVCS, FUTURE_YEAR, SUCCEEDS, useCard, useCvc } from '../helpers/reliability/cards';

export const HOSTILE_INPUT = 'hostile input';

const FUZZ_BATCH = 6;
const REQUEST_ID = /^req_[A-Za-z0-9]{24}$/;
const SHAPE_B_TYPES = ['invalid_request_error', 'api_error', 'card_error'];
/** The id a 2xx of each create names: the Shape B refund answers with its Payment. */
const ID_PREFIX: Record<string, string> = {
  'payments.create': 'pay_', 'payments.create_hosted': 'pay_', 'refunds.create': 'ref_', 'payouts.create': 'po_', 'payments.refund_b': 'pay_',
};

/** Codes answered after the idempotency claim (business rules and provider answers): the claim stays, released. */
const AFTER_CLAIM: ReadonlySet<string> = new Set([
  'merchant_not_provisioned', 'currency_not_supported', 'object_not_found', 'payment_not_refundable', 'amount_exceeds_refundable',
  'invalid_card', 'unsupported_card', 'rate_limit_exceeded', 'processing_error', 'service_unavailable', 'card_declined', 'charge_already_refunded',
]);

interface EndpointStats {
  cases: number;
  ms: number;
  accepted: number;
  failures: number;
}

const header = (answer: RawAnswer, name: string) => {
  const value = answer.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The API key the server will authenticate, read as it does: first header, surrounding blanks
 * dropped, the scheme name in any case (RFC 9110 11.1; `bearer <key>` is accepted, and its claim
 * is one of an accepted request).
 */
function authenticatedKey(request: FuzzRequest, keys: FuzzKeys): 'test' | 'live' | null {
  const raw = request.headers.Authorization;
  const value = (Array.isArray(raw) ? raw[0] : raw)?.replace(/^[ \t]+|[ \t]+$/g, '') ?? '';
  const token = /^Bearer ([^\s]+)$/i.exec(value)?.[1];
  return token === keys.test ? 'test' : token === keys.live ? 'live' : null;
}

const headerValue = (request: FuzzRequest, name: string): string => {
  const raw = request.headers[name];
  return (Array.isArray(raw) ? raw.join(', ') : raw ?? '').replace(/^[ \t]+|[ \t]+$/g, '');
};

function idempotencyKeyOf(request: FuzzRequest): string {
  return headerValue(request, 'Idempotency-Key');
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** What is wrong with one answer (an empty list is the pass). */
function checkAnswer(request: FuzzRequest, answer: RawAnswer | null): string[] {
  if (!answer) return ['the connection ended without an answer'];
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  const requestId = header(answer, 'request-id');
  if (!requestId || !REQUEST_ID.test(requestId)) problems.push(`Request-Id header ${requestId}`);
  if (request.kind === 'page' || request.method === 'HEAD') return problems;
  const json = parseJson(answer.text);
  if (json === null) return [...problems, `not JSON: ${answer.text.slice(0, 100)}`];
  if (answer.status >= 200 && answer.status < 300) {
    if (request.forbiddenField) problems.push('accepted a body with a server-decided field');
    if (request.kind === 'create' && !String(json?.id).startsWith(ID_PREFIX[request.operation!]!)) problems.push(`2xx without an id: ${answer.text.slice(0, 100)}`);
    return problems;
  }
  const error = json?.error;
  const code = error?.code as ErrorCode | undefined;
  if (!code || !(code in ERROR_CATALOGUE)) return [...problems, `code ${code} is not in the catalogue`];
  if (ERROR_CATALOGUE[code].status !== answer.status) problems.push(`${code} with status ${answer.status}`);
  if (typeof error.message !== 'string' || error.message.length === 0) problems.push('no message');
  if (error.request_id !== requestId) problems.push(`error.request_id ${error.request_id} != Request-Id ${requestId}`);
  const shapeB = 'type' in error;
  if (shapeB && (!SHAPE_B_TYPES.includes(error.type) || !('param' in error))) problems.push(`Shape B envelope ${answer.text.slice(0, 200)}`);
  if (!shapeB && error.param !== undefined && typeof error.param !== 'string') problems.push(`param ${JSON.stringify(error.param)}`);
  return problems;
}

async function objectIds(stack: ReliabilityStack, merchantId: string): Promise<Set<string>> {
  const rows: Array<{ id: string }> = await stack.api.deps.dataSource.query(
    'SELECT id FROM payments WHERE merchant_id = ? UNION ALL SELECT id FROM refunds WHERE merchant_id = ? UNION ALL SELECT id FROM payouts WHERE merchant_id = ?',
    [merchantId, merchantId, merchantId],
  );
  return new Set(rows.map((r) => r.id));
}

async function claims(stack: ReliabilityStack, merchantId: string): Promise<Set<string>> {
  const rows: Array<{ mode: string; operation: string; idempotency_key: string }> = await stack.api.deps.dataSource.query(
    'SELECT k.mode, r.operation, r.idempotency_key FROM idempotency_records r JOIN api_keys k ON k.id = r.api_key_id WHERE k.merchant_id = ?',
    [merchantId],
  );
  return new Set(rows.map((r) => `${r.mode} ${r.operation} ${r.idempotency_key}`));
}

/** Of these ids, the FAILED Shape B payments (a declined Shape B create answers 402 and keeps its Payment). */
async function declinedShapeBPayments(stack: ReliabilityStack, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows: Array<{ id: string }> = await stack.api.deps.dataSource.query(
    `SELECT id FROM payments WHERE status = 'FAILED' AND api_version = '2024-06-01' AND id IN (${ids.map(() => '?').join(',')})`, ids,
  );
  return rows.map((r) => r.id);
}

async function refundIdsOf(stack: ReliabilityStack, paymentId: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await stack.api.deps.dataSource.query('SELECT id FROM refunds WHERE payment_id = ? ORDER BY seq', [paymentId]);
  return rows.map((r) => r.id);
}

const difference = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x));

export function hostileInputSection(stack: ReliabilityStack): void {
  describe(HOSTILE_INPUT, () => {
    it(`${COUNTS.fuzzCases} hostile requests on every endpoint: no 5xx, catalogue envelopes, no state changed by a rejected request`, async () => {
      const ledger = new Ledger();
      const fuzzed = await newMerchant(stack, 'Fuzz Shop');
      const other = await newMerchant(stack, 'Fuzz Neighbour');
      const client = merchantClient(() => stack.apiProcessUrl, fuzzed, ledger);
      const otherClient = merchantClient(() => stack.apiProcessUrl, other, ledger);
      const revoked = (await adminOps(stack.api).createKey({ merchantId: fuzzed.merchantId, mode: 'test' })).key;
      await adminOps(stack.api).revokeKey(revoked);
      const keys: FuzzKeys = { test: fuzzed.testKey, live: fuzzed.liveKey, revoked };

      const payment = await succeededPayment(client, 'visa', 'fuzz target');
      const shapeBPayment = await succeededPayment(client, 'visa', 'fuzz target of the Shape B refund');
      const hosted = await trackCreate(client, 'payment', hostedPaymentBody(), 'fuzz hosted page', SUCCEEDS, { path: '/v1/payments/hpp' });
      const payout = await trackCreate(client, 'payout', payoutBody('4242424242424242'), 'fuzz target payout', SUCCEEDS);
      const foreignPayment = await trackCreate(otherClient, 'payment', paymentBody('4242424242424242'), 'foreign payment', SUCCEEDS);
      const foreignPayout = await trackCreate(otherClient, 'payout', payoutBody('4242424242424242'), 'foreign payout', SUCCEEDS);
      expect(ledger.problems).toEqual([]);
      const ids = {
        paymentId: payment!.id,
        shapeBPaymentId: shapeBPayment!.id,
        payoutId: payout!.id,
        hostedToken: new URL(hosted!.first.json.next_action.redirect_url).pathname.split('/').pop()!,
        foreignPaymentId: foreignPayment!.id,
        foreignPayoutId: foreignPayout!.id,
      };
      const valid = {
        payment: paymentBody('4242424242424242'),
        hosted: hostedPaymentBody(),
        refund: refundBody(ids.paymentId, 1),
        payout: payoutBody('4242424242424242'),
        shapeBPayment: { amount: 2500, currency: 'usd', card: { number: useCard('4242424242424242'), exp_month: 12, exp_year: FUTURE_YEAR, cvc: useCvc(CVCS[0]) } },
        // No callback_url: the service would POST to it, and this suite talks to 127.0.0.1 only.
        shapeBHosted: { amount: 2500, currency: 'usd', redirect_url: 'https://shop.example/return', description: 'fuzz' },
      };

      const objectsBefore = await objectIds(stack, fuzzed.merchantId);
      const claimsBefore = await claims(stack, fuzzed.merchantId);
      const createdIds = new Set<string>();
      let shapeBRefunds = 0;
      // A Shape B decline answers 402 card_declined, and the declined Payment exists (docs/shape-b.md).
      let shapeBDeclines = 0;
      const expectedClaims = new Set<string>();
      const stats = new Map<string, EndpointStats>();
      const statuses: Record<string, number> = {};
      const codes = new Set<string>();
      const failures: string[] = [];

      const seed = Number(process.env.RELIABILITY_SEED ?? 20251101);
      const fuzzOne = async (request: FuzzRequest): Promise<void> => {
        const started = performance.now();
        const answer = await sendRaw(stack.apiProcessUrl, request);
        const endpoint = stats.get(request.endpoint) ?? { cases: 0, ms: 0, accepted: 0, failures: 0 };
        stats.set(request.endpoint, endpoint);
        endpoint.cases += 1;
        endpoint.ms += performance.now() - started;
        const status = answer?.status ?? 0;
        statuses[status] = (statuses[status] ?? 0) + 1;
        const problems = checkAnswer(request, answer);
        if (problems.length) {
          endpoint.failures += 1;
          failures.push(`${answer?.status}: ${problems.join('; ')} <- ${describeRequest(request)}`);
        }
        if (!answer || request.kind !== 'create') return;
        const json = parseJson(answer.text);
        const code: string | undefined = status >= 400 ? json?.error?.code : undefined;
        if (code) codes.add(code);
        const mode = authenticatedKey(request, keys);
        const claim = `${mode} ${request.operation!} ${idempotencyKeyOf(request)}`;
        if (status >= 200 && status < 300) {
          endpoint.accepted += 1;
          const replayed = header(answer, 'idempotent-replayed') === 'true';
          // The Shape B refund answers with its Payment: the refund it made is counted, not named.
          if (!replayed && request.operation === 'payments.refund_b') shapeBRefunds += 1;
          else if (!replayed) createdIds.add(json?.id);
          expectedClaims.add(claim);
        } else if (code && AFTER_CLAIM.has(code)) {
          expectedClaims.add(claim);
          if (code === 'card_declined') shapeBDeclines += 1;
        }
      };
      // Cases go out FUZZ_BATCH at a time: the API process answers them concurrently, as it would
      // its clients.
      const batches = fc.array(fuzzRequest(ids, keys, valid), { minLength: FUZZ_BATCH, maxLength: FUZZ_BATCH });
      await fc.assert(fc.asyncProperty(batches, async (batch) => { await Promise.all(batch.map(fuzzOne)); }),
        { numRuns: Math.ceil(COUNTS.fuzzCases / FUZZ_BATCH), seed, endOnFailure: true });

      // State: exactly the objects the 2xx answers named, and claims only where the idempotency
      // step was reached.
      const objectsAfter = await objectIds(stack, fuzzed.merchantId);
      const claimsAfter = await claims(stack, fuzzed.merchantId);
      const shapeBRefundIds = await refundIdsOf(stack, ids.shapeBPaymentId);
      const expectedObjects = new Set([...objectsBefore, ...createdIds, ...shapeBRefundIds.slice(0, shapeBRefunds)]);
      const allowedClaims = new Set([...claimsBefore, ...expectedClaims]);
      const unnamed = difference(objectsAfter, expectedObjects);
      const declined = await declinedShapeBPayments(stack, unnamed);
      const stateProblems = [
        ...(declined.length > shapeBDeclines ? [`${declined.length} declined Shape B payments for ${shapeBDeclines} card_declined answers`] : []),
        ...unnamed.filter((id) => !declined.includes(id)).map((id) => `object ${id} exists though no 2xx named it`),
        ...difference(expectedObjects, objectsAfter).map((id) => `object ${id} was answered 2xx but does not exist`),
        ...difference(claimsAfter, allowedClaims).map((claim) => `idempotency record left by a request rejected before the idempotency step: ${claim}`),
      ];

      for (const [endpoint, s] of [...stats.entries()].sort()) {
        recordFigure({ section: HOSTILE_INPUT, fault: `${endpoint} (objects: accepted creates)`, tried: s.cases, objects: s.accepted, lost: 0, duplicated: 0, wrong: s.failures });
      }
      recordFigure({
        section: HOSTILE_INPUT, fault: 'state after all cases: objects and idempotency records of the fuzzed merchant',
        tried: COUNTS.fuzzCases, objects: objectsAfter.size, lost: stateProblems.filter((p) => p.includes('does not exist')).length, duplicated: 0,
        wrong: stateProblems.filter((p) => !p.includes('does not exist')).length,
      });
      recordMeasurement(HOSTILE_INPUT, `seed ${seed}; statuses ${JSON.stringify(statuses)}; error codes seen: ${[...codes].sort().join(', ')}; `
        + `${createdIds.size} objects created by accepted requests; ${expectedClaims.size} idempotency claims by requests that reached the idempotency step; `
        + `mean answer time per endpoint (ms): ${[...stats.entries()].map(([e, st]) => `${e} ${Math.round(st.ms / st.cases)}`).join(', ')}`);
      sectionDone(HOSTILE_INPUT);
      expect({ failures: failures.slice(0, 20), count: failures.length, stateProblems }).toEqual({ failures: [], count: 0, stateProblems: [] });
    }, LONG_MODE ? 3_600_000 : 600_000);
  });
}
