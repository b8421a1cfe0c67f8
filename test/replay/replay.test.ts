// QA history replay: histories recorded from real runs (test/replay/histories, refreshed by
// test/integration/record-histories.test.ts) must replay against the current workflow code, and a
// deliberately nondeterministic change must be caught.
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TEST_CARD_NUMBERS } from '../../src/domain/cards';
import { readHistoryFiles, replayHistories } from '../../src/replay/histories';
import { workflowBundle } from '../../workers/worker';

const HISTORIES = path.join(__dirname, 'histories');
const histories = readHistoryFiles(HISTORIES);
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never;

it('covers every workflow type and main path', () => {
  const names = histories.map((h) => h.workflowId).sort();
  for (const scenario of [
    'payment-frictionless', 'payment-3ds-authenticated', 'payment-3ds-expired', 'payment-declined',
    'refund-succeeded', 'refund-failed', 'payout-pending-then-succeeded', 'payout-pending-then-failed', 'webhook-delivery',
    'payment-shape-b-direct', 'payment-shape-b-3ds-declined', 'payment-shape-b-hosted-callback',
  ]) {
    expect(names.some((n) => n.startsWith(scenario))).toBe(true);
  }
});

it('every recorded history replays against the current workflow code', async () => {
  const outcomes = await replayHistories(await workflowBundle(), histories);
  expect(outcomes).toHaveLength(histories.length);
  expect(outcomes.filter((o) => !o.ok)).toEqual([]);
}, 120_000);

it('a nondeterministic change is caught', async () => {
  const changed = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'fixtures', 'nondeterministic-workflows.ts'), logger: silent });
  const paymentHistories = histories.filter((h) => h.workflowId.startsWith('payment-'));
  const outcomes = await replayHistories(changed, paymentHistories);
  expect(outcomes.length).toBeGreaterThan(0);
  for (const outcome of outcomes) {
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/DeterminismViolation|Nondeterminism|TMPRL1100/i);
  }
  // The unchanged workflow types still replay with the changed bundle.
  const others = await replayHistories(changed, histories.filter((h) => !h.workflowId.startsWith('payment-')));
  expect(others.every((o) => o.ok)).toBe(true);
}, 120_000);

it('recorded histories hold no card number or CVC (payloads decoded)', () => {
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
  for (const file of fs.readdirSync(HISTORIES)) walk(JSON.parse(fs.readFileSync(path.join(HISTORIES, file), 'utf8')));
  const text = decoded.join('\n');
  expect(text.length).toBeGreaterThan(1000);
  // Card numbers start with 3-6 (millisecond timestamps, also 13 digits, start with 1).
  expect(text).not.toMatch(/\b[3-6]\d{12,18}\b/);
  for (const pan of TEST_CARD_NUMBERS) expect(text).not.toContain(pan);
  expect(text).not.toMatch(/"cvc"/);
  expect(text).toContain('"last4"');
});
