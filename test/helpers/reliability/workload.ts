// Mixed merchant traffic: Direct Payments with and without 3D Secure (completed by HTTP POST, as
// a browser without JavaScript would), declines, expired cards, refunds and payouts. Each
// scenario is what one merchant client does; its creates are tracked in a Ledger for the audit.
import { createMerchant, directPaymentBody, type TestMerchant } from '../api';
import { openPage, submitOutcome } from '../sandbox';
import { CVCS, FUTURE_YEAR, PAYMENT_CARDS, PAYOUT_CARDS, failsWith, refundOutcome, useCard, useCvc, type Outcome } from './cards';
import { createUntilSettled, getUntil, newCreate } from './client';
import type { Ledger, ObjectKind, TrackedObject } from './ledger';
import { PERSONAL_DATA, rememberApiKeys, rememberWebhookSecrets } from './secrets';
import type { ReliabilityStack } from './stack';

export type PaymentCard = keyof typeof PAYMENT_CARDS;
export type PayoutCard = keyof typeof PAYOUT_CARDS;

export type Scenario =
  | { kind: 'payment'; card: PaymentCard; threeDs?: 'authenticate' | 'fail'; expired?: boolean }
  /** A frictionless Payment, once SUCCEEDED refunded in parts. */
  | { kind: 'refunds'; card: 'visa' | 'refundFails' | 'refundRejected'; amounts: number[] }
  | { kind: 'payout'; card: PayoutCard };

/** One merchant's client: where it sends, with which key, and the ledger its creates go into. */
export interface MerchantClient {
  baseUrl: () => string;
  merchantId: string;
  key: string;
  ledger: Ledger;
  /** How long one create may keep retrying before it counts as lost. */
  deadlineMs: number;
}

export const PAYMENT_AMOUNT = 5000;

/** A merchant of the suite; its keys are remembered for the secrets scan. */
export async function newMerchant(stack: ReliabilityStack, name: string, webhookUrl?: string): Promise<TestMerchant> {
  const merchant = await createMerchant(stack.api, { name, webhookUrl });
  rememberApiKeys(merchant.testKey, merchant.liveKey);
  rememberWebhookSecrets(merchant.webhookSecret);
  return merchant;
}

export function merchantClient(baseUrl: () => string, merchant: { merchantId: string; testKey: string }, ledger: Ledger, deadlineMs = 300_000): MerchantClient {
  return { baseUrl, merchantId: merchant.merchantId, key: merchant.testKey, ledger, deadlineMs };
}

/** How many creates a scenario sends. */
export function createsIn(scenario: Scenario): number {
  return scenario.kind === 'refunds' ? 1 + scenario.amounts.length : 1;
}

export function describeScenario(scenario: Scenario): string {
  switch (scenario.kind) {
    case 'payment':
      return `payment ${scenario.card}${scenario.expired ? ' expired' : ''}${scenario.threeDs ? ` + 3DS ${scenario.threeDs}` : ''}`;
    case 'refunds':
      return `refunds ${scenario.amounts.join('+')} of ${scenario.card} payment`;
    case 'payout':
      return `payout ${scenario.card}`;
  }
}

export function paymentBody(number: string, options: { amount?: number; expired?: boolean; cvc?: string } = {}) {
  return directPaymentBody(
    {
      amount: options.amount ?? PAYMENT_AMOUNT, currency: 'USD', description: PERSONAL_DATA.description, customer_ip_address: PERSONAL_DATA.customerIp,
      billing_details: { email: PERSONAL_DATA.billingEmail, first_name: 'Ysolde', last_name: PERSONAL_DATA.billingLastName },
    },
    { number: useCard(number), cvc: useCvc(options.cvc ?? CVCS[0]), exp_year: options.expired ? 2020 : FUTURE_YEAR, holder_name: PERSONAL_DATA.holderName },
  );
}

export function payoutBody(number: string, amount = 2500) {
  return {
    amount,
    currency: 'USD',
    initiator_ip_address: PERSONAL_DATA.payoutIp,
    recipient: { first_name: PERSONAL_DATA.recipientFirstName, last_name: PERSONAL_DATA.recipientLastName, country: 'US' },
    destination: { card_number: useCard(number) },
  };
}

export function refundBody(paymentId: string, amount: number) {
  return { payment_id: paymentId, amount, reason: PERSONAL_DATA.refundReason };
}

const CREATE_PATH: Record<ObjectKind, string> = { payment: '/v1/payments', refund: '/v1/refunds', payout: '/v1/payouts' };

/** Sends a create until it settles and tracks the object it made; null when it never got a 2xx. */
export interface CreateOptions {
  /** Provider effects the object must end with (0 when the service decides alone). */
  providerEffects?: 0 | 1;
  idempotencyKey?: string;
  /** Another create path of the kind (the hosted payment page). */
  path?: string;
}

export async function trackCreate(
  client: MerchantClient, kind: ObjectKind, body: unknown, scenario: string, outcome: Outcome, options: CreateOptions = {},
): Promise<TrackedObject | null> {
  const { providerEffects = 1, idempotencyKey, path = CREATE_PATH[kind] } = options;
  const create = newCreate(path, client.key, body, idempotencyKey);
  const startedAt = Date.now();
  const { answer, retries } = await createUntilSettled(client.baseUrl, create, client.deadlineMs);
  if (!client.ledger.settle(create, answer, scenario)) return null;
  return client.ledger.track({
    kind, scenario, merchantId: client.merchantId, create, first: answer, id: answer.json.id, outcome, providerEffects,
    retries, startedAt, settledAt: Date.now(),
  });
}

/**
 * The shopper's side of 3D Secure on the sandbox pages: the device step (when shown) continues by
 * itself, then the challenge is answered. Returns the sandbox's final answer status.
 */
export async function completeThreeDs(redirectUrl: string, outcome: 'authenticate' | 'fail'): Promise<number> {
  let url = redirectUrl;
  const page = await openPage(url);
  if (page.text.includes('value="continue"')) {
    const continued = await submitOutcome(url, 'continue');
    if (continued.status !== 303 || !continued.location) return continued.status;
    url = new URL(continued.location, url).toString();
  }
  return (await submitOutcome(url, outcome)).status;
}

export function hostedPaymentBody(amount = PAYMENT_AMOUNT) {
  return { amount, currency: 'USD', customer_ip_address: PERSONAL_DATA.hostedCustomerIp, return_url: 'https://shop.example/return', description: PERSONAL_DATA.description };
}

/** The shopper submits the hosted payment page's card form (plain HTTP, as without JavaScript). */
export async function submitHostedCard(pageUrl: string, number: string): Promise<{ status: number; location: string | null }> {
  const res = await fetch(pageUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      card_number: useCard(number), exp: `12/${String(FUTURE_YEAR).slice(-2)}`, cvc: useCvc(CVCS[1]), cardholder_name: PERSONAL_DATA.hostedCardholder,
    }).toString(),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

async function runPayment(client: MerchantClient, scenario: Extract<Scenario, { kind: 'payment' }>): Promise<void> {
  const card = PAYMENT_CARDS[scenario.card];
  const label = describeScenario(scenario);
  let outcome: Outcome = card.outcome;
  if (scenario.expired) outcome = failsWith('expired_card');
  else if (scenario.threeDs === 'fail') outcome = failsWith('three_d_secure_failed');
  const tracked = await trackCreate(client, 'payment', paymentBody(card.number, { expired: scenario.expired }), label, outcome, { providerEffects: scenario.expired ? 0 : 1 });
  if (!tracked || tracked.first.json.status !== 'REQUIRES_ACTION') return;
  const status = await completeThreeDs(tracked.first.json.next_action.redirect_url, scenario.threeDs ?? 'authenticate');
  if (status !== 303) client.ledger.problem('wrong', `${label} ${tracked.id}`, `the 3DS page answered ${status}`);
  tracked.settledAt = Date.now();
}

/** A frictionless Payment, once it is SUCCEEDED (null, with a problem recorded, if it never is). */
export async function succeededPayment(client: MerchantClient, card: PaymentCard, label: string, amount = PAYMENT_AMOUNT): Promise<TrackedObject | null> {
  const payment = await trackCreate(client, 'payment', paymentBody(PAYMENT_CARDS[card].number, { amount }), `${label}: the payment`, PAYMENT_CARDS[card].outcome);
  if (!payment) return null;
  const final = await getUntil(client.baseUrl, `/v1/payments/${payment.id}`, client.key,
    (answer) => answer.status !== 200 || ['SUCCEEDED', 'FAILED', 'EXPIRED'].includes(answer.json.status), client.deadlineMs);
  payment.settledAt = Date.now();
  if (final?.json?.status === 'SUCCEEDED') return payment;
  client.ledger.problem('wrong', `${label} ${payment.id}`, `the payment to refund ended ${final?.status} ${final?.json?.status}`);
  return null;
}

async function runRefunds(client: MerchantClient, scenario: Extract<Scenario, { kind: 'refunds' }>): Promise<void> {
  const label = describeScenario(scenario);
  const payment = await succeededPayment(client, scenario.card, label);
  if (!payment) return;
  const card = PAYMENT_CARDS[scenario.card];
  for (const amount of scenario.amounts) {
    await trackCreate(client, 'refund', refundBody(payment.id, amount), label, refundOutcome(card.number));
  }
}

export async function runScenario(client: MerchantClient, scenario: Scenario): Promise<void> {
  switch (scenario.kind) {
    case 'payment':
      return runPayment(client, scenario);
    case 'refunds':
      return runRefunds(client, scenario);
    case 'payout':
      await trackCreate(client, 'payout', payoutBody(PAYOUT_CARDS[scenario.card].number), describeScenario(scenario), PAYOUT_CARDS[scenario.card].outcome);
  }
}

/** A small seeded generator (mulberry32), so a run's mix and fault moments can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Weighted mix of scenarios: payments with and without 3DS, declines, refunds and payouts. */
const MIX: Array<[number, (random: () => number) => Scenario]> = [
  [20, (r) => ({ kind: 'payment', card: pick(r, ['visa', 'mastercard', 'amex', 'discover'] as const) })],
  [10, (r) => ({ kind: 'payment', card: pick(r, ['genericDecline', 'insufficientFunds', 'doNotHonor', 'lostCard', 'processorError'] as const) })],
  [3, () => ({ kind: 'payment', card: 'visa', expired: true })],
  [10, () => ({ kind: 'payment', card: 'challenge', threeDs: 'authenticate' })],
  [4, () => ({ kind: 'payment', card: 'challenge', threeDs: 'fail' })],
  [6, () => ({ kind: 'payment', card: 'deviceThenChallenge', threeDs: 'authenticate' })],
  [3, () => ({ kind: 'payment', card: 'challengeAlwaysFails', threeDs: 'authenticate' })],
  [12, (r) => ({ kind: 'refunds', card: 'visa', amounts: r() < 0.5 ? [PAYMENT_AMOUNT] : [1500, 2000] })],
  [3, () => ({ kind: 'refunds', card: 'refundFails', amounts: [1000] })],
  [3, () => ({ kind: 'refunds', card: 'refundRejected', amounts: [1000] })],
  [12, (r) => ({ kind: 'payout', card: pick(r, ['visa', 'mastercard'] as const) })],
  [4, (r) => ({ kind: 'payout', card: pick(r, ['declined', 'insufficientFunds'] as const) })],
  [6, (r) => ({ kind: 'payout', card: pick(r, ['rateLimitedFirst', 'unavailableFirst', 'badGatewayFirst'] as const) })],
  [2, () => ({ kind: 'payout', card: 'processorUnavailable' })],
];

/** Scenarios until they hold at least `creates` creates. */
export function mixedScenarios(random: () => number, creates: number): Scenario[] {
  const total = MIX.reduce((sum, [weight]) => sum + weight, 0);
  const scenarios: Scenario[] = [];
  let count = 0;
  while (count < creates) {
    let roll = random() * total;
    const entry = MIX.find(([weight]) => (roll -= weight) < 0) ?? MIX[0]!;
    const scenario = entry[1](random);
    scenarios.push(scenario);
    count += createsIn(scenario);
  }
  return scenarios;
}

export interface WorkloadProgress {
  startedCreates: number;
  finishedScenarios: number;
  /** Set to stop the lanes from taking further scenarios (a failed run winding down). */
  stopped?: boolean;
}

/** Runs the scenarios on `lanes` concurrent clients; `progress` is updated as they go. */
export async function runWorkload(client: MerchantClient, scenarios: Scenario[], lanes: number, progress: WorkloadProgress): Promise<void> {
  const queue = [...scenarios];
  const lane = async () => {
    for (let scenario = queue.shift(); scenario && !progress.stopped; scenario = queue.shift()) {
      progress.startedCreates += createsIn(scenario);
      await runScenario(client, scenario);
      progress.finishedScenarios += 1;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}
