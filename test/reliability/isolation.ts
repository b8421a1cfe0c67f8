// Isolation (OWASP API1, BOLA): every `{id}` endpoint, refunds aimed at a foreign Payment (both
// refund operations), every list and search, and the hosted page tokens, probed with another
// merchant's keys and with the other mode's key of the owner. No probe may see, touch or count a
// foreign object: reads are 404 object_not_found, refunds create nothing, lists never include it.
import { randomUUID } from 'node:crypto';
import type { TestMerchant } from '../helpers/api';
import { SUCCEEDS } from '../helpers/reliability/cards';
import { COUNTS, LONG_MODE } from '../helpers/reliability/config';
import { send, type Answer } from '../helpers/reliability/client';
import { recordFigure, sectionDone } from '../helpers/reliability/figures';
import { Ledger, allProviderRecords } from '../helpers/reliability/ledger';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import {
  hostedPaymentBody, merchantClient, newMerchant, payoutBody, refundBody, submitHostedCard, succeededPayment, trackCreate,
} from '../helpers/reliability/workload';

export const ISOLATION = 'isolation';

const SHAPE_B = { 'Service-Version': '2024-06-01' };

interface Owned {
  merchant: TestMerchant;
  paymentId: string;
  hostedId: string;
  hostedPage: string;
  payoutId: string;
  /** Distinctive values a search could match. */
  merchantReference: number;
  lastName: string;
  last4: string;
}

interface Probe {
  row: string;
  /** Problems found (an empty list is the pass). */
  problems: string[];
}

/** A merchant with a refunded Payment, a hosted Payment and a Payout carrying distinctive search values. */
async function ownedObjects(stack: ReliabilityStack, ledger: Ledger, name: string, card: string, merchantReference: number): Promise<Owned> {
  const merchant = await newMerchant(stack, name);
  const client = merchantClient(() => stack.apiProcessUrl, merchant, ledger);
  const lastName = `${name.replace(/\W/g, '')}${merchantReference}`;
  const payment = await succeededPayment(client, 'visa', `${name} payment`);
  await trackCreate(client, 'refund', refundBody(payment!.id, 100), `${name} refund`, SUCCEEDS);
  const hosted = await trackCreate(client, 'payment', hostedPaymentBody(), `${name} hosted payment`, SUCCEEDS, { path: '/v1/payments/hpp', providerEffects: 0 });
  const payout = await trackCreate(client, 'payout', { ...payoutBody(card), merchant_reference: merchantReference, recipient: { first_name: 'Iso', last_name: lastName, country: 'US' } },
    `${name} payout`, SUCCEEDS);
  return {
    merchant, paymentId: payment!.id, hostedId: hosted!.id, hostedPage: hosted!.first.json.next_action.redirect_url, payoutId: payout!.id,
    merchantReference, lastName, last4: card.slice(-4),
  };
}

function intruders(victim: Owned, other: Owned): Array<{ label: string; key: string }> {
  return [
    { label: 'another merchant (test key)', key: other.merchant.testKey },
    { label: 'another merchant (live key)', key: other.merchant.liveKey },
    { label: 'the owner in the other mode (live key)', key: victim.merchant.liveKey },
  ];
}

const get = (stack: ReliabilityStack, key: string, path: string, headers: Record<string, string> = {}) => send(stack.apiProcessUrl, { method: 'GET', path, key, headers });

/** Whether an answer shows any of the victim's ids. */
const leaks = (answer: Answer, victim: Owned) => [victim.paymentId, victim.hostedId, victim.payoutId].filter((id) => answer.text.includes(id) && !answer.json?.error);

async function probeReads(stack: ReliabilityStack, victim: Owned, key: string, label: string): Promise<string[]> {
  const problems: string[] = [];
  const reads: Array<[string, Record<string, string>]> = [
    [`/v1/payments/${victim.paymentId}`, {}], [`/v1/payments/${victim.paymentId}`, SHAPE_B], [`/v1/payments/${victim.hostedId}`, {}], [`/v1/payouts/${victim.payoutId}`, {}],
  ];
  for (const [path, headers] of reads) {
    const answer = await get(stack, key, path, headers);
    if (answer.status !== 404 || answer.json?.error?.code !== 'object_not_found') problems.push(`${label}: GET ${path} answered ${answer.status} ${answer.text.slice(0, 120)}`);
  }
  return problems;
}

async function probeRefunds(stack: ReliabilityStack, victim: Owned, key: string, label: string): Promise<string[]> {
  const problems: string[] = [];
  const attempts = [
    { path: '/v1/refunds', body: refundBody(victim.paymentId, 100), headers: {} },
    { path: `/v1/payments/${victim.paymentId}/refund`, body: undefined, headers: SHAPE_B },
  ];
  for (const attempt of attempts) {
    const answer = await send(stack.apiProcessUrl, { method: 'POST', path: attempt.path, key, body: attempt.body, idempotencyKey: randomUUID(), headers: attempt.headers });
    // Live keys have no provider: merchant_not_provisioned comes first, which is no less a refusal.
    const refused = (answer.status === 404 && answer.json?.error?.code === 'object_not_found') || answer.json?.error?.code === 'merchant_not_provisioned';
    if (!refused) problems.push(`${label}: POST ${attempt.path} answered ${answer.status} ${answer.text.slice(0, 120)}`);
  }
  return problems;
}

async function probeLists(stack: ReliabilityStack, victim: Owned, key: string, label: string): Promise<{ problems: string[]; requests: number }> {
  const problems: string[] = [];
  // Searches by the victim's own values must not even count the victim's payouts (total_count 0).
  const searches = [`search=${victim.payoutId}`, `search=${victim.merchantReference}`, `search=${victim.lastName}`];
  const lists: Array<[string, Record<string, string>]> = [
    ['/v1/payments?limit=100', {}],
    ['/v1/payments?limit=100&status=SUCCEEDED', {}],
    ['/v1/payments?limit=100&status=REQUIRES_ACTION', {}],
    ['/v1/payments?limit=100', SHAPE_B],
    ['/v1/payments?limit=100&status=refunded', SHAPE_B],
    [`/v1/payments?limit=100&starting_after=${victim.paymentId}`, {}],
    [`/v1/payments?limit=100&ending_before=${victim.paymentId}`, {}],
    ['/v1/payouts?limit=100', {}],
    [`/v1/payouts?search=${victim.payoutId}`, {}],
    [`/v1/payouts?search=${victim.last4}`, {}],
    [`/v1/payouts?card_last4=${victim.last4}`, {}],
    [`/v1/payouts?search=${victim.merchantReference}`, {}],
    [`/v1/payouts?search=${victim.lastName}`, {}],
    [`/v1/payouts?search=${victim.lastName.toLowerCase()}`, {}],
    ['/v1/payouts?search=25&currency=USD', {}],
    [`/v1/payouts?limit=100&starting_after=${victim.payoutId}`, {}],
  ];
  for (const [path, headers] of lists) {
    const answer = await get(stack, key, path, headers);
    const found = leaks(answer, victim);
    const shown = answer.json?.total_count;
    if (answer.status >= 500 || found.length) problems.push(`${label}: GET ${path} answered ${answer.status} showing ${found.join(', ')}`);
    if (searches.some((search) => path.endsWith(search)) && shown !== 0) problems.push(`${label}: GET ${path} counted ${shown}`);
  }
  return { problems, requests: lists.length };
}

/** Hosted page tokens: each opens its own Payment only, a forged one nothing, and a card given to one goes nowhere else. */
async function probeHostedPages(stack: ReliabilityStack, a: Owned, b: Owned): Promise<string[]> {
  const problems: string[] = [];
  for (const [owner, other] of [[a, b], [b, a]] as const) {
    const page = await fetch(owner.hostedPage);
    const html = await page.text();
    const ownName = owner.merchant === a.merchant ? 'Isolation A' : 'Isolation B';
    const otherName = ownName === 'Isolation A' ? 'Isolation B' : 'Isolation A';
    if (page.status !== 200 || !html.includes(ownName) || html.includes(otherName) || html.includes(other.hostedId)) {
      problems.push(`the hosted page of ${owner.hostedId} answered ${page.status} and shows ${html.includes(otherName) ? 'the other merchant' : 'not its own'}`);
    }
    const token = new URL(owner.hostedPage).pathname.split('/').pop()!;
    const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const forgedPage = await fetch(new URL(`/checkout/${forged}`, owner.hostedPage));
    await forgedPage.arrayBuffer();
    if (forgedPage.status !== 404) problems.push(`a forged hosted token answered ${forgedPage.status}`);
  }
  const submitted = await submitHostedCard(a.hostedPage, '4242424242424242');
  if (submitted.status !== 303) problems.push(`submitting A's hosted page answered ${submitted.status}`);
  const bPayment = await get(stack, b.merchant.testKey, `/v1/payments/${b.hostedId}`);
  if (bPayment.json?.status !== 'REQUIRES_ACTION' || bPayment.json?.card !== null) problems.push(`B's hosted payment changed when A's page was submitted: ${bPayment.text.slice(0, 200)}`);
  return problems;
}

async function refundsOf(stack: ReliabilityStack, paymentId: string): Promise<number> {
  const rows: Array<{ n: number | string }> = await stack.api.deps.dataSource.query('SELECT COUNT(*) AS n FROM refunds WHERE payment_id = ?', [paymentId]);
  return Number(rows[0]!.n);
}

export function isolationSection(stack: ReliabilityStack): void {
  describe(ISOLATION, () => {
    it('other merchants and the other mode never see, refund or count a foreign object', async () => {
      const ledger = new Ledger();
      const a = await ownedObjects(stack, ledger, 'Isolation A', '5555555555554444', 1111111111 + Math.floor(Math.random() * 1e8));
      const b = await ownedObjects(stack, ledger, 'Isolation B', '4242424242424242', 2222222222 + Math.floor(Math.random() * 1e8));
      expect(ledger.problems).toEqual([]);
      const refundsBefore = await refundsOf(stack, a.paymentId) + await refundsOf(stack, b.paymentId);
      const providerRefundsBefore = (await allProviderRecords()).refunds.length;

      const probes: Probe[] = [];
      let listRequests = 0;
      for (let round = 0; round < COUNTS.isolationRounds; round += 1) {
        for (const [victim, other] of [[a, b], [b, a]] as const) {
          for (const intruder of intruders(victim, other)) {
            probes.push({ row: 'reads', problems: await probeReads(stack, victim, intruder.key, intruder.label) });
            probes.push({ row: 'refunds', problems: await probeRefunds(stack, victim, intruder.key, intruder.label) });
            const lists = await probeLists(stack, victim, intruder.key, intruder.label);
            listRequests += lists.requests;
            probes.push({ row: 'lists', problems: lists.problems });
          }
        }
      }
      probes.push({ row: 'hosted', problems: await probeHostedPages(stack, a, b) });
      const refundsAfter = await refundsOf(stack, a.paymentId) + await refundsOf(stack, b.paymentId);
      const providerRefundsAfter = (await allProviderRecords()).refunds.length;
      if (refundsAfter !== refundsBefore || providerRefundsAfter !== providerRefundsBefore) {
        probes.push({ row: 'refunds', problems: [`refunds went from ${refundsBefore} to ${refundsAfter} (provider ${providerRefundsBefore} to ${providerRefundsAfter})`] });
      }

      const wrong = (row: string) => probes.filter((p) => p.row === row).reduce((sum, p) => sum + p.problems.length, 0);
      const rounds = COUNTS.isolationRounds * 2 * 3;
      const rows: Array<[string, string, number]> = [
        ['reads', 'GET /v1/payments/{id} (Shape A and B), GET /v1/payouts/{payout_id} of a foreign object, other merchant or other mode', rounds * 4],
        ['refunds', 'POST /v1/refunds and POST /v1/payments/{id}/refund (Shape B) against a foreign Payment', rounds * 2],
        ['lists', 'GET /v1/payments (filters, cursors, both shapes) and GET /v1/payouts (search by id, last4, reference, name, amount; filters; cursors)', listRequests],
        ['hosted', 'hosted page tokens: own page only, forged token, a submission touches only its own Payment', 4],
      ];
      for (const [row, fault, tried] of rows) {
        recordFigure({ section: ISOLATION, fault, tried, objects: 6, lost: 0, duplicated: 0, wrong: wrong(row) });
      }
      sectionDone(ISOLATION);
      expect(probes.flatMap((p) => p.problems)).toEqual([]);
    }, LONG_MODE ? 1_200_000 : 300_000);
  });
}
