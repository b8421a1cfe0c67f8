// The `card-payments` CLI of the packed SDK (npm pack, npm install of the tarball), against the
// real service: `listen` forwards each new event of the key's account and mode to a local receiver,
// signed with the secret it prints (verified here with the Standard Webhooks library itself), and
// nothing that happened before it started; `trigger` creates the test objects of an event type.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { PaymentsClient, type PaymentCreateParams } from '../../sdk/src';
import { eventually, useTestApi } from '../helpers/api';
import { installPackedSdk, type InstalledSdk } from '../helpers/sdk-package';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver';

jest.setTimeout(180_000);

let sdk: InstalledSdk;
let receiver: WebhookReceiver;
let listener: ChildProcess | undefined;
let listenOutput = '';

// The packed SDK and the receiver are made before the fixture's API starts, and removed before it closes.
beforeAll(async () => { [sdk, receiver] = await Promise.all([installPackedSdk(), startWebhookReceiver()]); });
afterAll(async () => {
  listener?.kill('SIGTERM');
  await receiver?.close();
  sdk?.remove();
});
const t = useTestApi({ merchant: { name: 'CLI Shop' } });

/** The CLI as a merchant runs it, with its own HOME (where `listen` keeps its secret). */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(sdk.bin, args, { cwd: sdk.dir, env: { PATH: process.env.PATH!, HOME: sdk.dir } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }));
}

const keyArgs = () => ['--api-key', t.merchant.testKey, '--base-url', t.api.url];

const paymentParams = (number: string): PaymentCreateParams => ({
  amount: 4999, currency: 'EUR', customer_ip_address: '203.0.113.7', return_url: 'https://shop.example/return',
  payment_method_data: { type: 'card', card: { number, exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123', holder_name: 'Ada Lovelace' } },
});

it('installs from its tarball with its bin and nothing but its build and README', async () => {
  const listing = await promisify(execFile)('tar', ['-tzf', sdk.tarball]);
  const files = listing.stdout.trim().split('\n').map((entry) => entry.replace(/^package\//, ''));
  expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js']));
  expect(files.filter((file) => !file.startsWith('dist/') && !['package.json', 'README.md'].includes(file))).toEqual([]);
  expect((await cli(['--version'])).stdout.trim()).toBe('1.0.0');
  expect((await cli(['--help'])).stdout).toContain('card-payments listen --forward-to URL');
});

it('listen: forwards each new event, signed with the secret it prints, and nothing from before it started', async () => {
  const client = new PaymentsClient({ apiKey: t.merchant.testKey, baseUrl: t.api.url });
  const before = await client.payments.create(paymentParams('4242424242424242'));
  await eventually(() => client.events.list({ object_id: before.id }), (page) => page.data.some((event) => event.type === 'payment.succeeded'));

  listener = spawn(sdk.bin, ['listen', ...keyArgs(), '--forward-to', receiver.url, '--interval', '200'], { cwd: sdk.dir, env: { PATH: process.env.PATH!, HOME: sdk.dir } });
  listener.stdout!.on('data', (chunk: Buffer) => { listenOutput += chunk.toString('utf8'); });
  listener.stderr!.on('data', (chunk: Buffer) => { listenOutput += chunk.toString('utf8'); });
  const ready = await eventually(async () => /signing secret is (whsec_\S+)/.exec(listenOutput), (match) => match !== null, 30_000);
  const secret = ready![1]!;
  // The secret stays the machine's: --print-secret gives the same one.
  expect((await cli(['listen', '--print-secret'])).stdout.trim()).toBe(secret);
  expect(fs.statSync(path.join(sdk.dir, '.config', 'card-payments', 'listen-secret')).mode & 0o777).toBe(0o600);

  const succeeded = await client.payments.create(paymentParams('4242424242424242'));
  const failed = await client.payments.create(paymentParams('4000000000000002'));
  const expected = [`payment.processing ${succeeded.id}`, `payment.succeeded ${succeeded.id}`, `payment.failed ${failed.id}`];
  const received = () => receiver.received.map((delivery) => `${delivery.json.type} ${delivery.json.data.object.id}`);
  await eventually(async () => received(), (lines) => expected.every((line) => lines.includes(line)), 30_000);

  const webhook = new Webhook(secret);
  for (const delivery of receiver.received) {
    expect(() => webhook.verify(delivery.body, delivery.headers)).not.toThrow();
    expect(delivery.headers['webhook-id']).toBe(delivery.json.id);
    expect(client.webhooks.verify(delivery.body, delivery.headers, secret).id).toBe(delivery.json.id);
    // The body of a real webhook: no `object: "event"` of the Events API.
    expect(Object.keys(delivery.json)).toEqual(['id', 'type', 'created_at', 'livemode', 'data']);
    expect(() => webhook.verify(delivery.body.replace(delivery.json.id, 'evt_x'), delivery.headers)).toThrow();
  }
  // Each event once, and none of the Payment made before it started.
  const ids = receiver.received.map((delivery) => delivery.json.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(receiver.received.filter((delivery) => delivery.json.data.object.id === before.id)).toEqual([]);
  expect(listenOutput).toMatch(new RegExp(`--> payment\\.failed \\[${receiver.received.find((delivery) => delivery.json.type === 'payment.failed')!.json.id}\\]`));
  expect(listenOutput).toContain(`<--  [200] POST ${receiver.url}`);
});

it.each([
  ['payment.failed', ['payment.failed']],
  ['refund.succeeded', ['refund.processing', 'refund.succeeded', 'payment.refunded']],
  ['payout.pending', ['payout.pending']],
  ['payment.requires_action', ['payment.requires_action']],
])('trigger %s: creates the test objects, and listen forwards the event', async (type, raised) => {
  const already = receiver.received.length;
  const result = await cli(['trigger', type, ...keyArgs()]);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toContain(`Trigger succeeded! Check your webhook endpoint or card-payments listen for ${type}.`);
  const types = () => receiver.received.slice(already).map((delivery) => delivery.json.type);
  await eventually(async () => types(), (seen) => raised.every((event) => seen.includes(event)), 30_000);
});

it('trigger refuses a live key and an unknown event type; listen needs --forward-to', async () => {
  const live = await cli(['trigger', 'payment.succeeded', '--api-key', t.merchant.liveKey, '--base-url', t.api.url]);
  expect(live).toMatchObject({ code: 1, stderr: expect.stringContaining('needs a test key') });
  const unknown = await cli(['trigger', 'payment.disputed', ...keyArgs()]);
  expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('no trigger for "payment.disputed"') });
  expect(await cli(['listen', ...keyArgs()])).toMatchObject({ code: 1, stderr: expect.stringContaining('--forward-to') });
  const badKey = await cli(['trigger', 'payment.succeeded', '--api-key', 'svc_test_sk_nope', '--base-url', t.api.url]);
  expect(badKey).toMatchObject({ code: 1, stderr: expect.stringContaining('401 invalid_api_key') });
});
