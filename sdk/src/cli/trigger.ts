// `card-payments trigger <event type>`: creates the test-mode objects whose changes raise that event,
// with the sandbox's test cards, so that a webhook handler (or `listen`) receives a real one.
import type { PaymentsClient } from '../client';
import type { Payment, PaymentCreateParams, PayoutCreateParams, WebhookEventType } from '../types';

const CARDS = {
  succeeds: '4242424242424242',
  declined: '4000000000000002',
  challenge: '4000000000003220',
  refundFails: '4000000000005126',
  payoutRateLimited: '4000004290000003',
} as const;

const paymentParams = (number: string): PaymentCreateParams => ({
  amount: 2000,
  currency: 'USD',
  customer_ip_address: '203.0.113.7',
  return_url: 'https://shop.example/return',
  description: 'card-payments trigger',
  payment_method_data: { type: 'card', card: { number, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123', holder_name: 'Test Customer' } },
});

const payoutParams = (cardNumber: string): PayoutCreateParams => ({
  amount: 2500,
  currency: 'USD',
  initiator_ip_address: '203.0.113.7',
  recipient: { first_name: 'Test', last_name: 'Recipient', country: 'US' },
  destination: { card_number: cardNumber },
});

type Say = (line: string) => void;

async function createPayment(client: PaymentsClient, say: Say, number: string): Promise<Payment> {
  const payment = await client.payments.create(paymentParams(number));
  say(`created payment ${payment.id} (${payment.status})`);
  return payment;
}

/** A payment that has SUCCEEDED (it is PROCESSING for about a second first). */
async function succeededPayment(client: PaymentsClient, say: Say, number: string): Promise<Payment> {
  const created = await createPayment(client, say, number);
  const deadline = Date.now() + 60_000;
  for (let payment = created; ; payment = await client.payments.retrieve(created.id)) {
    if (payment.status === 'SUCCEEDED') return payment;
    if (payment.status !== 'PROCESSING' && payment.status !== 'PENDING') throw new Error(`payment ${payment.id} ended ${payment.status}, not SUCCEEDED`);
    if (Date.now() > deadline) throw new Error(`payment ${payment.id} is still ${payment.status} after a minute`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function refundInFull(client: PaymentsClient, say: Say, card: string): Promise<void> {
  const payment = await succeededPayment(client, say, card);
  const refund = await client.refunds.create({ payment_id: payment.id, amount: payment.amount_refundable, reason: 'card-payments trigger' });
  say(`created refund ${refund.id} of ${payment.id} (${refund.status})`);
}

async function payout(client: PaymentsClient, say: Say, cardNumber: string): Promise<void> {
  const created = await client.payouts.create(payoutParams(cardNumber));
  say(`created payout ${created.id} (${created.status})`);
}

/** What raises each event type, with the test cards of the sandbox. */
const FIXTURES: Record<WebhookEventType, (client: PaymentsClient, say: Say) => Promise<unknown>> = {
  'payment.processing': (client, say) => createPayment(client, say, CARDS.succeeds),
  'payment.succeeded': (client, say) => succeededPayment(client, say, CARDS.succeeds),
  'payment.failed': (client, say) => createPayment(client, say, CARDS.declined),
  'payment.requires_action': (client, say) => createPayment(client, say, CARDS.challenge),
  'payment.expired': async (client, say) => {
    await createPayment(client, say, CARDS.challenge);
    say('nobody completes its 3D Secure step: it expires after the service\'s action time-out (PAYMENT_ACTION_TTL_SECONDS, 15 minutes by default)');
  },
  'payment.refunded': (client, say) => refundInFull(client, say, CARDS.succeeds),
  'refund.processing': (client, say) => refundInFull(client, say, CARDS.succeeds),
  'refund.succeeded': (client, say) => refundInFull(client, say, CARDS.succeeds),
  'refund.failed': (client, say) => refundInFull(client, say, CARDS.refundFails),
  'payout.pending': (client, say) => payout(client, say, CARDS.payoutRateLimited),
  'payout.processing': (client, say) => payout(client, say, CARDS.succeeds),
  'payout.succeeded': (client, say) => payout(client, say, CARDS.succeeds),
  'payout.failed': (client, say) => payout(client, say, CARDS.declined),
};

export const TRIGGERS = Object.keys(FIXTURES) as WebhookEventType[];

export async function trigger(client: PaymentsClient, apiKey: string, type: string, say: Say = (line) => process.stdout.write(`${line}\n`)): Promise<void> {
  const fixture = FIXTURES[type as WebhookEventType];
  if (!fixture) throw new Error(`no trigger for "${type}"; event types: ${TRIGGERS.join(', ')}`);
  if (!apiKey.startsWith('svc_test_sk_')) throw new Error('trigger uses test cards: it needs a test key (svc_test_sk_...)');
  say(`Setting up fixture for: ${type}`);
  await fixture(client, say);
  say(`Trigger succeeded! Check your webhook endpoint or card-payments listen for ${type}.`);
}
