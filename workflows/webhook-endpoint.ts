// WebhookEndpointWorkflow: the circuit of one endpoint whose deliveries fail (CONTRACT section 14,
// docs/webhooks.md "A failing endpoint"). Started (signal-with-start) when a delivery to the
// endpoint fails, or is handed over without an attempt; it runs while the endpoint has pending
// deliveries. Each drain attempts the oldest pending delivery (the probe) and, while they answer
// 2xx, the next ones in order. A failed probe fails the drain with the delay to the next backoff
// step, and the drain's own retry is the wait: a failing endpoint costs one attempt per step, and
// neither a workflow task nor a timer, however many events wait behind it. The queue and the
// endpoint's state are in the database; the workflow only keeps the drains going.
import {
  ActivityCancellationType, CancellationScope, condition, continueAsNew, patched, proxyActivities, setHandler, workflowInfo,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import { wakeEndpointSignal, type DrainResult, type WebhookEndpointWorkflowFn } from '../contracts/webhook-endpoint';

/** Keeps a long outage's history short. */
const MAX_HISTORY_EVENTS = 2000;
/** Runs from before it drained on a backoff of workflow timers, one task per step. */
const BACKOFF_IN_ACTIVITY_PATCH = 'circuit-backoff-in-activity';

export const WebhookEndpointWorkflow: WebhookEndpointWorkflowFn = async (input) => {
  let woken = false;
  setHandler(wakeEndpointSignal, () => {
    woken = true;
  });
  const { drainEndpoint } = proxyActivities<WebhookActivities>({
    // A drain makes attempts one after another for at most a minute, heartbeating after each.
    startToCloseTimeout: '5 minutes',
    heartbeatTimeout: '30 seconds',
    // A failed probe names its own delay (nextRetryDelay, up to an hour); other failures, the
    // database away for instance, retry on this schedule. A wake cancels a drain waiting for its
    // retry; one that is running finishes first, so that two drains never send at once.
    retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });

  /** The next drain's result, or `woken` when a change of the endpoint came first. */
  const drainUnlessWoken = async (): Promise<DrainResult | 'woken'> => {
    const scope = new CancellationScope();
    const drain = scope.run(() => drainEndpoint({ endpointId: input.endpointId }));
    const first = await Promise.race([drain, condition(() => woken).then(() => 'woken' as const)]);
    if (first !== 'woken') return first;
    scope.cancel();
    // Cancelled while it waited, or a running drain that finished (failed or not) after the
    // request: either way the next drain reads the endpoint as it is now.
    return drain.catch(() => 'woken' as const);
  };

  const backoffInActivity = patched(BACKOFF_IN_ACTIVITY_PATCH);
  let failedProbes = input.failedProbes ?? 0;
  for (;;) {
    woken = false;
    const result = backoffInActivity ? await drainUnlessWoken() : await drainEndpoint({ endpointId: input.endpointId, failedProbes });
    if (result === 'woken') continue;
    if (result.state === 'closed' || result.state === 'ended') {
      // Work that arrived during the drain is drained before the circuit's workflow ends.
      if (woken) continue;
      return;
    }
    if (result.state === 'more') failedProbes = 0;
    else {
      // Only runs from before the patch: their drains answered a failed probe with its delay.
      failedProbes = result.failedProbes;
      await condition(() => woken, result.retryInSeconds * 1000);
    }
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > MAX_HISTORY_EVENTS) {
      await continueAsNew<WebhookEndpointWorkflowFn>({ endpointId: input.endpointId, failedProbes });
    }
  }
};
