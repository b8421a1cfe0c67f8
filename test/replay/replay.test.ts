// QA history replay: histories recorded from real runs (test/replay/histories, refreshed by
// test/integration/record-histories.test.ts) must replay against the current workflow code, and a
// deliberately nondeterministic change must be caught. They are encrypted, as the server keeps
// them, with the repository's test key (codec-test-key.ts).
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TEST_CARD_NUMBERS } from '../../src/domain/cards';
import { decodeHistory, historyPayloads, readHistoryFiles, replayHistories } from '../../src/replay/histories';
import { EncryptionCodec, keyIdOf } from '../../src/temporal/codec';
import { workflowBundle } from '../../workers/worker';
import { RELEASED } from '../helpers/release';
import { TEST_CODEC_KEYS } from './codec-test-key';

const HISTORIES = path.join(__dirname, 'histories');
const histories = readHistoryFiles(HISTORIES);
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never;

/** `<scenario>-before-<change>` and `<scenario>-patched-<change>`: histories kept while a patch is phased out (docs/operations.md). */
const PATCH_PHASE = /-(before|patched)-[a-z0-9-]+$/;

it('covers every workflow type and main path', () => {
  const names = histories.map((h) => h.workflowId);
  expect([...new Set(names.map((n) => n.replace(PATCH_PHASE, '')))].sort()).toEqual([
    'payment-frictionless', 'payment-3ds-authenticated', 'payment-3ds-expired', 'payment-declined', 'payment-unanswered-abandoned',
    'payment-with-refund', 'payment-with-failed-refund', 'refund-succeeded', 'refund-failed',
    'payment-with-rejected-refund', 'refund-rejected-at-submission', 'payment-with-unanswered-refund', 'refund-unanswered-resubmitted',
    'payment-hot-continued-as-new', 'payment-hot-after-continue-as-new',
    'refund-continued-as-new', 'refund-after-continue-as-new',
    'payout-pending-then-succeeded', 'payout-pending-then-failed', 'payout-processing-then-succeeded', 'payout-provider-hangs', 'webhook-delivery', 'webhook-delivery-refused',
    'payment-shape-b-direct', 'payment-shape-b-3ds-declined', 'payment-shape-b-hosted-callback',
    'chore-idempotency-purge', 'chore-event-purge', 'chore-cvc-sweep',
  ].sort());
  // Before the first release no patch is phased out: every history is of the current code.
  if (!RELEASED) expect(names.filter((n) => PATCH_PHASE.test(n))).toEqual([]);
});

it('every recorded history replays against the current workflow code', async () => {
  const outcomes = await replayHistories(await workflowBundle(), histories, TEST_CODEC_KEYS);
  expect(outcomes).toHaveLength(histories.length);
  expect(outcomes.filter((o) => !o.ok)).toEqual([]);
}, 120_000);

it('a nondeterministic change is caught', async () => {
  const changed = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'fixtures', 'nondeterministic-workflows.ts'), logger: silent });
  const paymentHistories = histories.filter((h) => h.workflowId.startsWith('payment-'));
  const outcomes = await replayHistories(changed, paymentHistories, TEST_CODEC_KEYS);
  expect(outcomes.length).toBeGreaterThan(0);
  for (const outcome of outcomes) {
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/DeterminismViolation|Nondeterminism|TMPRL1100/i);
  }
  // The unchanged workflow types still replay with the changed bundle.
  const others = await replayHistories(changed, histories.filter((h) => !h.workflowId.startsWith('payment-')), TEST_CODEC_KEYS);
  expect(others.every((o) => o.ok)).toBe(true);
}, 120_000);

it('every payload of the recorded histories is encrypted with the test key (`npm run histories:encrypt` if not)', async () => {
  for (const { workflowId, history } of histories) {
    const payloads = await historyPayloads(history as never);
    // At least a result and an activity's (a chore without input has just these two).
    expect(payloads.length).toBeGreaterThanOrEqual(2);
    const keyIds = [...new Set(payloads.map((p) => keyIdOf(p)))];
    expect({ workflowId, keyIds }).toEqual({ workflowId, keyIds: [TEST_CODEC_KEYS.currentKeyId] });
  }
});

it('without the key the histories neither replay nor decode', async () => {
  const otherKey = { currentKeyId: 'other', keys: { other: 'ab'.repeat(32) } };
  const [outcome] = await replayHistories(await workflowBundle(), histories.slice(0, 1), otherKey);
  expect(outcome!.ok).toBe(false);
  expect(outcome!.error).toContain('test-histories');
  await expect(decodeHistory(histories[0]!.history as never, [new EncryptionCodec(otherKey)])).rejects.toThrow(/key "test-histories"/);
}, 120_000);

it('recorded histories hold no card number or CVC (payloads decrypted)', async () => {
  const codecs = [new EncryptionCodec(TEST_CODEC_KEYS)];
  const decoded: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'data' && typeof value === 'string') decoded.push(Buffer.from(value, 'base64').toString('utf8'));
        else walk(value);
      }
    }
  };
  for (const { history } of histories) walk(JSON.parse(historyToJSON(await decodeHistory(history as never, codecs))));
  const text = decoded.join('\n');
  expect(text.length).toBeGreaterThan(1000);
  // Card numbers start with 3-6 (millisecond timestamps, also 13 digits, start with 1).
  expect(text).not.toMatch(/\b[3-6]\d{12,18}\b/);
  for (const pan of TEST_CARD_NUMBERS) expect(text).not.toContain(pan);
  expect(text).not.toMatch(/"cvc"/);
  expect(text).toContain('"last4"');
});
