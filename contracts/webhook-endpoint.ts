// The WebhookEndpointWorkflow's contract: the circuit of one failing endpoint (workflow id = the
// endpoint id). It probes the endpoint on a backoff and, once it answers 2xx, sends the deliveries
// that waited behind the probe, oldest first.
import { defineSignal } from '@temporalio/workflow';
import type { WorkflowType } from './workflow-type';

export interface EndpointCircuitInput {
  endpointId: string;
  /** Failed probes in a row so far (carried over a continue-as-new). */
  failedProbes?: number;
}

/** What one drain of the endpoint's queue came to. */
export type DrainResult =
  /** Nothing pending: the circuit is closed. */
  | { state: 'closed' }
  /** The endpoint was deleted or disabled: its workflow ends (a re-enable starts it again). */
  | { state: 'ended' }
  /**
   * The probe failed (`failedProbes` in a row now): the next one in `retryInSeconds`. Runs before
   * the `circuit-backoff-in-activity` patch got it as a result; the activity now fails with
   * `ENDPOINT_FAILING` instead, and its retry is the wait.
   */
  | { state: 'failing'; retryInSeconds: number; failedProbes: number }
  /** Delivered as many as one drain may; more are pending. */
  | { state: 'more' };

/**
 * New work for the circuit, or a change of the endpoint (updated, re-enabled, deleted): drain now,
 * instead of at the next probe.
 */
export const wakeEndpointSignal = defineSignal<[]>('wake');

/** The failure type of a drain whose probe failed; its `nextRetryDelay` is the next backoff step. */
export const ENDPOINT_FAILING = 'EndpointFailing';

export type WebhookEndpointWorkflowFn = (input: EndpointCircuitInput) => Promise<void>;
export const webhookEndpointWorkflow: WorkflowType<WebhookEndpointWorkflowFn> = { name: 'WebhookEndpointWorkflow' };
