// PayoutWorkflow: one per Payout (workflow id = payout id), started with Update-with-Start. It is
// the single writer of its Payout, and reads as its two phases. Submission: it submits once and
// answers the `submit` update with the status that first answer gives; an answer that proves
// nothing (429, 5xx, timeout) leaves the Payout PENDING, and so does an answer that has not come
// within `answerWithinMs`: the update answers PENDING then, and the same submission goes on in the
// background under the same provider key. Resolution: it looks the Payout up at the provider under
// its idempotency key, and submits again (same key) only when the provider says it never received
// it, on durable timers with exponential backoff, until the Payout is terminal. There is no
// completion deadline. History stays bounded through continue-as-new. Deterministic: imports only
// @temporalio/workflow, the contracts, other workflow modules, activity types and pure modules.
import {
  allHandlersFinished, condition, continueAsNew, proxyActivities, proxyLocalActivities, setHandler, sleep, upsertSearchAttributes,
} from '@temporalio/workflow';
import type { PayoutActivities, SubmitPayoutInput } from '../activities/payout';
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
  /**
   * The first attempt runs as a local activity, inside the workflow task that answers the update:
   * one workflow task and no activity task when the provider answers in time. A task lost with its
   * attempt runs it again under the same provider key, which gets the same payout back. A server
   * timer could not cut it short (its firing waits for the task the attempt holds), so the
   * attempt's own time-out is the answer's deadline.
   */
  const firstAttempt = proxyLocalActivities<PayoutActivities>({
    startToCloseTimeout: settings.answerWithinMs,
    retry: { maximumAttempts: 1 },
  });
  let submitted = input.resolving !== undefined;
  /** The `submit` update may answer: the first answer is in history, or it was late and the Payout is answered PENDING. */
  let answered = submitted;
  let intervalSeconds = input.resolving?.intervalSeconds ?? settings.initialSeconds;
  let hint: PollHint = input.resolving?.hint ?? {};
  const projection = new Projection(input.payout, {
    record: (payout) => ({ kind: 'payout', payout }),
    owner: { merchantId: input.payout.merchant_id, livemode: input.payout.livemode },
    // Nothing is written before the update answers (the API records that answer itself); a
    // continued run starts from a Payout its previous run had already projected.
    open: answered,
    projected: answered,
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

  function submissionInput(): SubmitPayoutInput {
    const { id, livemode, amount, currency, recipient } = payout();
    return { payoutId: id, livemode, cardToken, amount, currency, recipient };
  }

  function submit(): Promise<ProviderAnswer> {
    return orUnanswered(submission.submitPayout(submissionInput()));
  }

  /** The update may answer now; the read model and the events follow from here. */
  function answer(): void {
    if (payout().status === 'PENDING') queueEvent(); // an answer that proves nothing, or none yet: payout.pending
    answered = true;
    projection.open();
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
  // The API records this answer in the read model before it replies, so the update does not wait
  // for the projector's activity and the workflow task after it.
  setHandler(submitPayoutUpdate, async () => {
    await condition(() => answered);
    return payout();
  });

  // Submission.
  if (!submitted) {
    let first: ProviderAnswer;
    try {
      first = await firstAttempt.submitPayout(submissionInput());
    } catch {
      // No answer within `answerWithinMs` (or the attempt failed): the merchant hears PENDING now,
      // and the submission goes on as a regular activity, retried, under the same provider key.
      answer();
      first = await submit();
    }
    change(outcome(first));
    if (!answered) answer();
    submitted = true;
  }

  // Resolution.
  let pollsThisRun = 0;
  while (!isTerminalPayoutStatus(payout().status)) {
    // The run's own count decides, never the server's per-task hint (workflows/payment/state.ts, rollOverDue).
    if (pollsThisRun >= settings.pollsPerRun) {
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
