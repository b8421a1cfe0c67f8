// The circuit of a webhook endpoint (docs/webhooks.md, "A failing endpoint"). While an endpoint
// fails, its `failing_since` is set (the circuit is open): the relay makes no attempt to it, and its
// deliveries wait pending in the database, in the order they were planned. One workflow per open
// circuit (workflows/webhook-endpoint.ts) drains them through `drainEndpoint`: it attempts the
// oldest (the probe) and, while they answer 2xx, the next ones; a failed probe answers the delay to
// the next backoff step (its activity retries after it).
// Once nothing is pending the circuit closes. An endpoint without a 2xx for the retry span is
// disabled (`disabled_reason` `failing`); its pending deliveries wait for a re-enable.
import type { DataSource } from 'typeorm';
import { WebhookDelivery, WebhookEndpoint } from '../db/entities';
import { retryDelaySeconds } from '../domain/webhook-endpoints';
import type { DrainResult } from '../../contracts/webhook-endpoint';
import { attemptDelivery, type DeliveryDeps } from './delivery';

/** Deliveries one drain may make before it hands back to its workflow (which may continue-as-new). */
const DRAIN_MAX_DELIVERIES = 100;
const DRAIN_MAX_MS = 60_000;

/** Whether the endpoint's circuit is open now (read after its delivery was planned: see the relay). */
export async function circuitOpen(dataSource: DataSource, endpointId: string): Promise<boolean> {
  const row = await dataSource.getRepository(WebhookEndpoint).findOne({ select: { failing_since: true }, where: { id: endpointId } });
  return row?.failing_since != null;
}

/** Opens the circuit of an endpoint whose delivery just failed (it stays as it is when open already). */
export async function openCircuit(dataSource: DataSource, endpointId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NULL', [nowMs, endpointId]);
}

/** Ends the pending deliveries of a deleted endpoint: marked failed. */
export async function endPendingDeliveries(dataSource: DataSource, endpointId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query(
    "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ? WHERE endpoint_id = ? AND status = 'pending'",
    [nowMs, endpointId],
  );
}

/**
 * A re-enabled endpoint: its circuit starts closed, and its pending deliveries (those whose events
 * are still kept) get a new retry span from now. Answers whether any is pending.
 */
export async function resumeEndpoint(dataSource: DataSource, endpointId: string, retrySpanMs: number, nowMs = Date.now()): Promise<boolean> {
  await dataSource.query('UPDATE webhook_endpoints SET failing_since = NULL, disabled_reason = NULL WHERE id = ?', [endpointId]);
  await dataSource.query(
    "UPDATE webhook_deliveries SET retry_until_ms = ?, next_attempt_at = ?, updated_at = ? WHERE endpoint_id = ? AND status = 'pending'",
    [nowMs + retrySpanMs, nowMs, nowMs, endpointId],
  );
  return (await oldestPending(dataSource, endpointId)) !== null;
}

/** The endpoint's pending deliveries are due now: its next drain probes at once (a new URL). */
export async function probeNow(dataSource: DataSource, endpointId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ? AND status = 'pending'", [nowMs, endpointId]);
}

/** A delivery the relay handed over without attempting it: due now. */
export async function dueNow(dataSource: DataSource, deliveryId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending'", [nowMs, deliveryId]);
}

async function oldestPending(dataSource: DataSource, endpointId: string): Promise<{ id: string; nextAttemptAt: number | null; attempts: number } | null> {
  const row = await dataSource.getRepository(WebhookDelivery).findOne({
    select: { id: true, next_attempt_at: true, attempts: true }, where: { endpoint_id: endpointId, status: 'pending' }, order: { seq: 'ASC' },
  });
  return row ? { id: row.id, nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at), attempts: row.attempts } : null;
}

export interface DrainInput {
  endpointId: string;
}

/**
 * Sends the endpoint's pending deliveries oldest first until one fails (the probe failed: answers
 * when to probe next), none is left (closes the circuit), or the drain's share is used (`more`).
 * `heartbeat` is called after each attempt.
 */
export async function drainEndpoint(
  deps: DeliveryDeps, retrySpanMs: number, input: DrainInput, heartbeat: () => void = () => {},
): Promise<DrainResult> {
  const { dataSource } = deps;
  const { endpointId } = input;
  const endpoints = dataSource.getRepository(WebhookEndpoint);
  const startedMs = Date.now();
  const endpoint = await endpoints.findOneBy({ id: endpointId });
  if (!endpoint || endpoint.deleted_at !== null) {
    if (endpoint) await endPendingDeliveries(dataSource, endpointId);
    return { state: 'ended' };
  }
  if (endpoint.status !== 'enabled') return { state: 'ended' };
  if (endpoint.failing_since !== null && startedMs - endpoint.failing_since >= retrySpanMs) return disable(dataSource, endpointId);
  // Each delivery is retried for the span from its planning (or its endpoint's re-enable).
  await dataSource.query(
    "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ? WHERE endpoint_id = ? AND status = 'pending' AND COALESCE(retry_until_ms, created_at + ?) < ?",
    [startedMs, endpointId, retrySpanMs, startedMs],
  );
  let delivered = 0;
  for (;;) {
    const next = await oldestPending(dataSource, endpointId);
    if (next === null) {
      // Closed, then checked again: a delivery the relay planned while the circuit was open, and
      // left to it, is either seen here or seen by the relay with the circuit closed.
      await dataSource.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?', [endpointId]);
      if ((await oldestPending(dataSource, endpointId)) === null) return { state: 'closed' };
      await openCircuit(dataSource, endpointId);
      continue;
    }
    if (delivered >= DRAIN_MAX_DELIVERIES || Date.now() - startedMs >= DRAIN_MAX_MS) return { state: 'more' };
    // The probe waits for its step (or for the relay's attempt in flight): a wake (a failed first
    // attempt, a sweeper) makes no extra attempt.
    const waitMs = delivered === 0 && next.nextAttemptAt !== null ? next.nextAttemptAt - Date.now() : 0;
    if (waitMs > 0) return { state: 'failing', retryInSeconds: Math.ceil(waitMs / 1000), failedProbes: Math.max(next.attempts, 1) };
    const outcome = await attemptDelivery(deps, { deliveryId: next.id });
    heartbeat();
    if (outcome.kind === 'delivered') {
      // A 2xx restarts the failing clock; the circuit stays open until the queue is empty, so that
      // later events keep waiting behind the older ones.
      if (delivered === 0) await dataSource.query('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NOT NULL', [Date.now(), endpointId]);
      delivered += 1;
      continue;
    }
    if (outcome.kind !== 'failed') continue; // refused or nothing to send: that delivery is done with
    const nowMs = Date.now();
    await openCircuit(dataSource, endpointId, nowMs);
    const failingSince = (await endpoints.findOne({ select: { failing_since: true }, where: { id: endpointId } }))?.failing_since ?? nowMs;
    if (nowMs - failingSince >= retrySpanMs) return disable(dataSource, endpointId);
    // The probe is the oldest pending delivery, so its attempts are the failed probes in a row: after
    // a 2xx the next one is probed, and the backoff starts again from its first step.
    const failedProbes = next.attempts + 1;
    const retryInSeconds = retryDelaySeconds(deps.webhooks.initialRetrySeconds, failedProbes);
    // Every waiting delivery goes out after the next probe at the earliest (the Events API shows it).
    await dataSource.query(
      "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ? AND status = 'pending'",
      [nowMs + retryInSeconds * 1000, endpointId],
    );
    return { state: 'failing', retryInSeconds, failedProbes };
  }
}

/** No 2xx for the retry span: disabled, its pending deliveries kept for a re-enable. */
async function disable(dataSource: DataSource, endpointId: string): Promise<DrainResult> {
  await dataSource.query(
    "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failing', failing_since = NULL, updated_at = ? WHERE id = ? AND status = 'enabled'",
    [Date.now(), endpointId],
  );
  return { state: 'ended' };
}
