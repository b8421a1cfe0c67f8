// The commands of README.md and docs/quickstart.md, run as a reader pastes them: in order, in one
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
  }, { inheritEnv: false });
  await waitForLog(stack.logFile, 'Press Ctrl-C to stop.', 120_000);
});

afterAll(async () => {
  for (const run of runs) run.stop();
  await stack?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

function readDoc(file: string): DocBlock[] {
  return fencedBlocks(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8'));
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

async function getPayment(key: string, id: string) {
  const response = await fetch(`${apiUrl}/v1/payments/${id}`, { headers: { Authorization: `Bearer ${key}` } });
  return (await response.json()) as { status: string };
}

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
  await eventually(() => getPayment(merchant.test_key, read.id), (p) => p.status === 'SUCCEEDED', 10_000);
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

it('docs/quickstart.md: every operation, the webhook receiver, an error and a test card work as written', async () => {
  const blocks = readDoc('docs/quickstart.md');
  expect(blocks.filter((b) => b.skip !== null)).toEqual([]);
  const run = await runDoc('quickstart', blocks);
  // The receiver of section 4 prints from the background, possibly in the middle of a curl answer.
  const WEBHOOK_LINE = /webhook verified: (\S+) (\S+)\n/g;
  const outputs = run.blocks().map(({ output }) => printedItems(output.replace(WEBHOOK_LINE, '')));
  expect(outputs).toHaveLength(5);
  const [keys, operations, receiver, error, testCard] = outputs as [Printed[], Printed[], Printed[], Printed[], Printed[]];

  // 1. Keys
  expect(texts(keys)).toEqual([]);
  expect(json(keys)).toEqual([MERCHANT]);

  // 2. Every operation
  expect(texts(operations)).toEqual([]);
  const [hpp, firstRead, pay, filtered, page2, refund, payout, search, ...more] = json(operations);
  expect(more).toEqual([]);
  expect(hpp).toMatchObject({ id: expect.stringMatching(/^pay_/), status: 'REQUIRES_ACTION', integration_type: 'HOSTED_PAYMENT_PAGE', next_action: { type: 'redirect', reason: 'hosted_payment_page', redirect_url: expect.stringMatching(/^http/) } });
  expect(firstRead).toMatchObject({ id: expect.stringMatching(/^pay_/), integration_type: 'DIRECT', merchant_reference: 1234567890 });
  expect(['PROCESSING', 'SUCCEEDED']).toContain(firstRead.status);
  expect(pay).toMatchObject({ id: firstRead.id, status: 'SUCCEEDED', amount_refundable: 4999 });
  expect(filtered).toMatchObject({ object: 'list', has_more: false });
  expect(filtered.data.map((p: { id: string }) => p.id)).toEqual([pay.id]);
  // The page after the newest payment holds the other one.
  expect(page2).toMatchObject({ object: 'list', has_more: false, data: [{ id: expect.stringMatching(/^pay_/) }] });
  expect([pay.id, hpp.id]).toContain(page2.data[0].id);
  expect(refund).toMatchObject({ id: expect.stringMatching(/^ref_/), payment_id: pay.id, amount: 1000, refund_type: 'PARTIAL', status: 'PROCESSING' });
  expect(payout).toMatchObject({ id: expect.stringMatching(/^po_/), amount: 2500, currency: 'EUR', recipient: { last_name: 'Díaz' } });
  expect(['PROCESSING', 'SUCCEEDED']).toContain(payout.status);
  expect(search).toMatchObject({ object: 'list' });
  expect(search.data.map((p: { id: string }) => p.id)).toEqual([payout.id]);

  // 4. The receiver starts quietly.
  expect(receiver).toEqual([]);

  // 5. The error, with its status line and the Request-Id the body names.
  const errorBody = json(error);
  expect(errorBody).toEqual([{ error: expect.objectContaining({ code: 'amount_exceeds_refundable', param: 'amount', doc_url: `${apiUrl}/docs#error-amount_exceeds_refundable` }) }]);
  expect(texts(error)[0]).toMatch(/^HTTP\/1\.1 422 /);
  expect(texts(error)).toContain(`Request-Id: ${errorBody[0].error.request_id}`);

  // 6. A declined test card.
  const [declined, ...others] = json(testCard);
  expect(others).toEqual([]);
  expect(declined).toMatchObject({ id: expect.stringMatching(/^pay_/), status: 'FAILED', failure_code: 'generic_decline' });

  // 4 again: the receiver verified the decline's event at once, and the events of section 2
  // (sent before it listened) with their retries.
  const verified = () => [...run.output().matchAll(WEBHOOK_LINE)].map((m) => `${m[1]} ${m[2]}`);
  const expected = [`payment.failed ${declined.id}`, `payment.succeeded ${pay.id}`, `payout.succeeded ${payout.id}`];
  await eventually(async () => verified(), (lines) => expected.every((line) => lines.includes(line)), 60_000, 500);
});
