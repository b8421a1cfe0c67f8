// PayoutWorkflow: one per Payout (workflow id = payout id), started with Update-with-Start. It is
// the single writer of its Payout, and reads as its two phases. Submission: it submits once and
// answers the `submit` update with the status that first answer gives; an answer that proves
// nothing (429, 5xx, timeout) leaves the Payout PENDING. Resolution: it looks the Payout up at the
// provider under its idempotency key, and submits again (same key) only when the provider says it
// never received it, on durable timers with exponential backoff, until the Payout is terminal. There
// is no completion deadline. History stays bounded through continue-as-new. Deterministic: imports
// only @temporalio/workflow, the contracts, other workflow modules, activity types and pure modules.
import {
  allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, sleep, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import type { PayoutActivities } from '../activities/payout';
import { failureMessage } from '../src/domain/failure-codes';
import { isTerminalPayoutStatus, nextPollInterval, pollDelayMs, type PayoutView, type PollHint } from '../src/domain/payout';
import type { Lookup, PayoutAnswer } from '../src/provider/types';
import { LastPolledAtKey, ObjectStatusKey, PollAttemptsKey } from './contracts/search-attributes';
import { payoutQuery, submitPayoutUpdate, type PayoutWorkflowFn } from './contracts/payout';
import { nowSeconds, Projection } from './projection';
import { orUnanswered } from './unanswered';

type ProviderAnswer = Lookup<PayoutAnswer>;

const submission = proxyActivities<PayoutActivities>({
  // Longer than the provider client's own timeout, which gives up without an answer first.
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});
const lookup = proxyActivities<PayoutActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

export const PayoutWorkflow: PayoutWorkflowFn = async (input) => {
  const { settings, cardToken } = input;
  let submitted = input.resolving !== undefined;
  let intervalSeconds = input.resolving?.intervalSeconds ?? settings.initialSeconds;
  let hint: PollHint = input.resolving?.hint ?? {};
  const projection = new Projection(input.payout, {
    record: (payout) => ({ kind: 'payout', payout }),
    owner: { merchantId: input.payout.merchant_id, livemode: input.payout.livemode },
    open: true,
    // A continued run starts from a Payout its previous run had already projected.
    projected: submitted,
  });
  const payout = () => projection.state;
  const queueEvent = () => projection.queueEvent({ kind: 'payout', payout: payout() }, payout().status);

  /** Every change goes through here: new version, timestamps, the status search attribute, its event. */
  function change(patch: Partial<PayoutView>): void {
    const current = payout();
    const next = { ...current, ...patch };
    if (next.status !== current.status) {
      next.updated_at = nowSeconds();
      if (isTerminalPayoutStatus(next.status)) next.completed_at = next.updated_at;
      upsertSearchAttributes([{ key: ObjectStatusKey, value: next.status }]);
    }
    projection.set(next);
    if (next.status !== current.status) queueEvent();
  }

  /** What a provider answer changes. An answer that proves nothing changes nothing but when to look next. */
  function outcome(answer: ProviderAnswer): Partial<PayoutView> {
    hint = {};
    switch (answer.kind) {
      case 'processing':
        hint = { settleAtMs: answer.settleAt };
        return payout().status === 'PENDING' ? { status: 'PROCESSING' } : {};
      case 'succeeded':
        return { status: 'SUCCEEDED' };
      case 'failed':
        return { status: 'FAILED', failure_code: answer.failureCode, failure_message: failureMessage(answer.failureCode) };
      case 'unanswered':
        hint = { retryAfterSeconds: answer.retryAfterSeconds };
        return {};
      case 'not_found':
        return {};
    }
  }

  function submit(): Promise<ProviderAnswer> {
    const { id, livemode, amount, currency, recipient } = payout();
    return orUnanswered(submission.submitPayout({ payoutId: id, livemode, cardToken, amount, currency, recipient }));
  }

  async function poll(): Promise<void> {
    const polledAtMs = Date.now();
    let answer: ProviderAnswer = await orUnanswered(lookup.pollPayoutStatus({ payoutId: payout().id, livemode: payout().livemode }));
    // Never received: submit again under the same provider key. Only a PENDING payout can be unknown.
    if (answer.kind === 'not_found' && payout().status === 'PENDING') answer = await submit();
    const attempts = payout().poll_attempts + 1;
    upsertSearchAttributes([
      { key: PollAttemptsKey, value: attempts },
      { key: LastPolledAtKey, value: new Date(polledAtMs) },
    ]);
    change({ poll_attempts: attempts, last_polled_at: Math.floor(polledAtMs / 1000), ...outcome(answer) });
  }

  setHandler(payoutQuery, () => payout());
  setHandler(submitPayoutUpdate, async () => {
    await condition(() => submitted);
    await projection.projected();
    return payout();
  });

  // Submission.
  if (!submitted) {
    change(outcome(await submit()));
    if (payout().status === 'PENDING') queueEvent(); // a first answer that proves nothing: payout.pending
    submitted = true;
  }

  // Resolution.
  let pollsThisRun = 0;
  while (!isTerminalPayoutStatus(payout().status)) {
    if (pollsThisRun >= settings.pollsPerRun || workflowInfo().continueAsNewSuggested) {
      await condition(() => projection.idle() && allHandlersFinished());
      await continueAsNew<PayoutWorkflowFn>({ ...input, payout: payout(), resolving: { intervalSeconds, hint } });
    }
    await sleep(pollDelayMs(intervalSeconds, hint, Date.now()));
    await poll();
    pollsThisRun += 1;
    intervalSeconds = nextPollInterval(intervalSeconds, settings);
  }

  // Terminal: the destination card goes with the last change record.
  projection.shredCard(cardToken);
  await projection.stop();
  return payout();
};
