// The commands of README.md, docs/quickstart.md and docs/webhooks.md, run as a reader pastes them: in order, in one
// fresh bash that has only PATH and HOME (plus DATA_DIR, below), against a service started by
// `npm start`'s own entry point (scripts/dev.ts) with its defaults: the embedded SQLite database,
// the development vault key, its own sandbox acquirer. The commands run verbatim except for two
// ports: the API's `localhost:3000` and the webhook receiver's 4000 become free ports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/config';
import { eventually } from '../helpers/api';
import { fencedBlocks, printedItems, runDocBlocks, type DocBlock, type DocRun, type Printed } from '../helpers/doc-commands';
import { getPayment } from '../helpers/payments';
import { TEST_LOG_DIR, freePort, spawnTs, waitForLog, type ManagedProcess } from '../helpers/processes';
import { TEST_ENV } from '../helpers/test-env';

jest.setTimeout(150_000);

// `npm start` keeps its data in DATA_DIR (default .data/); the service and the reader's shell get
// the same private one, so the run neither reads nor changes a developer's own .data/.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quickstart-data-'));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'quickstart-home-'));
const freshPath = [path.dirname(process.execPath), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(':');
const freshEnv = { PATH: freshPath, HOME: home, DATA_DIR: dataDir };

let stack: ManagedProcess;
let apiUrl: string;
let hookPort: number;
const runs: DocRun[] = [];

beforeAll(async () => {
  const apiPort = await freePort();
  hookPort = await freePort();
  apiUrl = `http://localhost:${apiPort}`;
  // scripts/dev.ts is `npm start` after its first-run install; it uses the suite's Temporal server
  // (TEMPORAL_ADDRESS set) on a task queue of its own, and starts everything else itself.
  stack = spawnTs('quickstart-stack', 'scripts/dev.ts', {
    ...freshEnv,
    PORT: String(apiPort),
    SANDBOX_PORT: String(await freePort()),
    CODEC_PORT: String(await freePort()),
    WORKER_METRICS_PORT: '0',
    TEMPORAL_ADDRESS: `127.0.0.1:${TEST_ENV.temporalPort}`,
    TEMPORAL_TASK_QUEUE: 'quickstart',
    // The suite's chores stay on the suite's queue (this stack's queue ends with the test).
    CHORE_SCHEDULES: 'off',
  }, { inheritEnv: false });
  await waitForLog(stack.logFile, 'Press Ctrl-C to stop.', 120_000);
});

afterAll(async () => {
  for (const run of runs) run.stop();
  await stack?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

/** The shell blocks of a document (its JSON answers and JavaScript are to read, not to run). */
function readDoc(file: string): DocBlock[] {
  return fencedBlocks(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')).filter((block) => block.info === 'bash');
}

async function runDoc(name: string, blocks: DocBlock[], env: Record<string, string> = {}): Promise<DocRun> {
  const run = runDocBlocks(blocks, {
    cwd: PROJECT_ROOT,
    env: { ...freshEnv, ...env },
    replace: [['localhost:3000', new URL(apiUrl).host], ['localhost:4000', `localhost:${hookPort}`], ['listen(4000)', `listen(${hookPort})`]],
    logFile: path.join(TEST_LOG_DIR, `quickstart-${name}.out`),
    scriptFile: path.join(home, `${name}.sh`),
    timeoutMs: 90_000,
  });
  runs.push(run);
  // Nothing may reach a port the run did not choose (a developer's own `npm start` on 3000).
  expect(run.script).not.toMatch(/:(3000|4000)\b|\((3000|4000)\)/);
  // Not on a fresh Debian machine.
  expect(run.script).not.toMatch(/\b(uuidgen|jq)\b/);
  const status = await run.exited;
  if (status !== 0) throw new Error(`the commands of ${name} ended with ${status}; output:\n${run.output()}`);
  return run;
}

const json = (items: Printed[]) => items.flatMap((item) => ('json' in item ? [item.json] : []));
const texts = (items: Printed[]) => items.flatMap((item) => ('text' in item ? [item.text] : []));

const MERCHANT = { merchant_id: expect.stringMatching(/^mer_/), test_key: expect.stringMatching(/^svc_test_sk_/), live_key: expect.stringMatching(/^svc_live_sk_/), webhook_secret: expect.stringMatching(/^whsec_/) };

it('README.md: the set-up commands are skipped by a visible marker, and the tour works as written', async () => {
  const blocks = readDoc('README.md');
  const skipped = blocks.filter((b) => b.skip !== null);
  expect(skipped).toHaveLength(1);
  expect(skipped[0]!.code).toMatch(/^npm start\b[^\n]*\nnpm test\b/);

  const run = await runDoc('README', blocks);
  const [tour] = run.blocks();
  const items = printedItems(tour!.output);
  expect(texts(items)).toEqual([]);
  const [merchant, read, ...rest] = json(items);
  expect(rest).toEqual([]);
  expect(merchant).toEqual(MERCHANT);
  expect(read).toMatchObject({ id: expect.stringMatching(/^pay_/), amount: 4999, currency: 'EUR', livemode: false });
  expect(['PROCESSING', 'SUCCEEDED']).toContain(read.status);
  // "SUCCEEDED when you read it again a second later"
  await eventually(() => getPayment({ url: apiUrl }, merchant.test_key, read.id), (r) => r.json?.status === 'SUCCEEDED', 10_000);
});

it('README.md: an admin command on another database than the service makes a key the service refuses, as README says', async () => {
  const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quickstart-other-'));
  try {
    const run = await runDoc('README-other-database', readDoc('README.md'), { DATABASE_URL: `sqlite:${path.join(otherDir, 'payments.sqlite')}` });
    const [merchant, read] = json(printedItems(run.blocks()[0]!.output));
    expect(merchant).toEqual(MERCHANT);
    expect(read).toEqual({ error: expect.objectContaining({ code: 'invalid_api_key' }) });
  } finally {
    fs.rmSync(otherDir, { recursive: true, force: true });
  }
});

/** What the webhook handlers of the docs print from the background, possibly in the middle of another block's output. */
const HANDLER_LINE = /(webhook verified|received|refund succeeded): (\S+) (\S+)\n/g;
const withoutHandlerLines = (output: string) => output.replace(HANDLER_LINE, '');
const handlerLines = (run: DocRun) => [...run.output().matchAll(HANDLER_LINE)].map((match) => `${match[1]}: ${match[2]} ${match[3]}`);

it('docs/quickstart.md: the SDK\'s checkout, webhooks through card-payments listen, every operation with curl, an error and a test card work as written', async () => {
  const blocks = readDoc('docs/quickstart.md');
  expect(blocks.filter((b) => b.skip !== null)).toEqual([]);
  const run = await runDoc('quickstart', blocks);
  const outputs = run.blocks().map(({ output }) => printedItems(withoutHandlerLines(output)));
  expect(outputs).toHaveLength(7);
  const [keys, install, checkout, webhooks, operations, error, testCard] = outputs as Printed[][];

  // 1. Keys
  expect(texts(keys!)).toEqual([]);
  expect(json(keys!)).toEqual([MERCHANT]);

  // 2. The SDK: built and installed quietly, then the checkout prints each step.
  expect(install).toEqual([]);
  const lines = texts(checkout!);
  const [created, settled, refund, payout, ...rest] = lines.map((line) => line.split(' '));
  expect(created).toEqual(['created', expect.stringMatching(/^pay_/), 'PROCESSING']);
  expect(settled).toEqual(['settled', created![1], 'SUCCEEDED']);
  expect(refund).toEqual(['refund', expect.stringMatching(/^ref_/), 'PROCESSING', 'PARTIAL']);
  expect(payout).toEqual(['payout', expect.stringMatching(/^po_/), expect.stringMatching(/^(PROCESSING|SUCCEEDED)$/)]);
  expect(rest).toEqual([['listed', created![1], '4999', 'EUR'], ['refused', '422', 'amount_exceeds_refundable', 'amount', expect.stringMatching(/^req_[A-Za-z0-9]{24}$/)]]);

  // 3. Webhooks: the trigger made a declined Payment, whose event the handler verified.
  expect(json(webhooks!)).toEqual([]);
  const triggered = texts(webhooks!);
  expect(triggered[0]).toBe('Setting up fixture for: payment.failed');
  const failedId = /^created payment (pay_\S+) \(FAILED\)$/.exec(triggered[1]!)?.[1];
  expect(failedId).toBeDefined();
  expect(triggered[2]).toBe('Trigger succeeded! Check your webhook endpoint or card-payments listen for payment.failed.');

  // 4. Every operation with curl
  expect(texts(operations!)).toEqual([]);
  const [hpp, firstRead, pay, filtered, page2, curlRefund, curlPayout, search, ...more] = json(operations!);
  expect(more).toEqual([]);
  expect(hpp).toMatchObject({ id: expect.stringMatching(/^pay_/), status: 'REQUIRES_ACTION', integration_type: 'HOSTED_PAYMENT_PAGE', next_action: { type: 'redirect', reason: 'hosted_payment_page', redirect_url: expect.stringMatching(/^http/) } });
  expect(firstRead).toMatchObject({ id: expect.stringMatching(/^pay_/), integration_type: 'DIRECT', merchant_reference: 1234567890 });
  expect(['PROCESSING', 'SUCCEEDED']).toContain(firstRead.status);
  expect(pay).toMatchObject({ id: firstRead.id, status: 'SUCCEEDED', amount_refundable: 4999 });
  expect(filtered).toMatchObject({ object: 'list', has_more: false });
  // The SDK's Payment of section 2 succeeded within the hour too.
  expect(filtered.data.map((p: { id: string }) => p.id)).toEqual([pay.id, created![1]]);
  // The page after the newest payment holds the one before it.
  expect(page2).toMatchObject({ object: 'list', has_more: true, data: [{ id: expect.stringMatching(/^pay_/) }] });
  expect([pay.id, hpp.id]).toContain(page2.data[0].id);
  expect(curlRefund).toMatchObject({ id: expect.stringMatching(/^ref_/), payment_id: pay.id, amount: 1000, refund_type: 'PARTIAL', status: 'PROCESSING' });
  expect(curlPayout).toMatchObject({ id: expect.stringMatching(/^po_/), amount: 2500, currency: 'EUR', recipient: { last_name: 'Díaz' } });
  expect(['PROCESSING', 'SUCCEEDED']).toContain(curlPayout.status);
  expect(search).toMatchObject({ object: 'list' });
  expect(search.data.map((p: { id: string }) => p.id)).toEqual([curlPayout.id, payout![1]]);

  // 6. The error, with its status line and the Request-Id the body names.
  const errorBody = json(error!);
  expect(errorBody).toEqual([{ error: expect.objectContaining({ code: 'amount_exceeds_refundable', param: 'amount', doc_url: `${apiUrl}/docs#error-amount_exceeds_refundable` }) }]);
  expect(texts(error!)[0]).toMatch(/^HTTP\/1\.1 422 /);
  expect(texts(error!)).toContain(`Request-Id: ${errorBody[0].error.request_id}`);

  // 7. A declined test card.
  const [declined, ...others] = json(testCard!);
  expect(others).toEqual([]);
  expect(declined).toMatchObject({ id: expect.stringMatching(/^pay_/), status: 'FAILED', failure_code: 'generic_decline' });

  // 3 again: the handler verified what listen forwarded, the trigger's event and the declined card's,
  // and the events of the Payments made since it started.
  const expected = [`webhook verified: payment.failed ${failedId}`, `webhook verified: payment.failed ${declined.id}`, `webhook verified: payment.succeeded ${pay.id}`];
  await eventually(async () => handlerLines(run), (seen) => expected.every((line) => seen.includes(line)), 60_000, 500);
  // Nothing that happened before listen started: the SDK's Payment of section 2 was PROCESSING, then
  // SUCCEEDED, before it (its refund may succeed either side).
  expect(handlerLines(run).filter((line) => line.endsWith(`payment.processing ${created![1]}`) || line.endsWith(`payment.succeeded ${created![1]}`))).toEqual([]);
  // Its handler and forwarder end here, so that the next document's can listen on the same port.
  run.stop();
});

it('docs/webhooks.md: listen with an event filter and a trigger, an endpoint created and its secret rotated, with the quick start\'s keys and SDK', async () => {
  // The quick start's handler and forwarder are done: this document's listen on the same port.
  for (const earlier of runs) earlier.stop();
  const quickstart = readDoc('docs/quickstart.md');
  const blocks = readDoc('docs/webhooks.md');
  // Only the operator's commands, on ids of their own, are left out.
  expect(blocks.filter((b) => b.skip !== null).map((b) => b.code.split('\n')[0])).toEqual(['npm run admin -- merchant update mer_... --webhook-url https://shop.example/webhooks']);
  const run = await runDoc('webhooks', [quickstart[0]!, quickstart[1]!, ...blocks]);
  const [keys, install, listen, created, rotated, ...rest] = run.blocks().map(({ output }) => printedItems(withoutHandlerLines(output)));
  expect(rest).toEqual([]);
  expect(json(keys!)).toEqual([MERCHANT]);
  expect(install).toEqual([]);
  expect(texts(listen!)[0]).toBe('Setting up fixture for: refund.succeeded');
  expect(texts(listen!).at(-1)).toBe('Trigger succeeded! Check your webhook endpoint or card-payments listen for refund.succeeded.');
  const refundId = texts(listen!).map((line) => /^created refund (ref_\S+) of/.exec(line)?.[1]).find(Boolean);
  const [endpoint] = json(created!);
  expect(endpoint).toMatchObject({ id: expect.stringMatching(/^we_/), url: 'https://shop.example/webhooks', status: 'enabled', secret: expect.stringMatching(/^whsec_/) });
  const [rotation] = json(rotated!);
  expect(rotation).toMatchObject({ id: endpoint.id, secret: expect.stringMatching(/^whsec_/) });
  expect(rotation.secret).not.toBe(endpoint.secret);
  // listen forwarded the refund's events and, with --events 'refund.*', nothing else.
  await eventually(async () => handlerLines(run), (seen) => seen.includes(`refund succeeded: ${refundId} 2000`) && seen.some((line) => line.startsWith('received: refund.processing evt_')), 60_000, 500);
  expect(handlerLines(run).filter((line) => !/^(received: refund\.|refund succeeded: )/.test(line))).toEqual([]);
});
