// The circuit of a webhook endpoint (docs/webhooks.md, "A failing endpoint"). While an endpoint
// fails, its `failing_since` is set (the circuit is open): the relay makes no attempt to it, and its
// deliveries wait pending in the database, in the order they were planned. The endpoint's
// `next_drain_at` says when its queue is drained next; the workers' circuit sweepers
// (src/webhooks/circuit-sweeper.ts) claim due endpoints and drain them through `drainEndpoint`: it
// attempts the oldest delivery (the probe) and, while they answer 2xx, the next ones; a failed
// probe sets the next backoff step. Once nothing is pending the circuit closes. An endpoint
// without a 2xx for the retry span is disabled (`disabled_reason` `failing`); its pending
// deliveries wait for a re-enable. No workflow: an open circuit costs Temporal nothing, and its
// state is all in these two tables.
import type { DataSource } from 'typeorm';
import { WebhookDelivery, WebhookEndpoint } from '../db/entities';
import { attemptDelivery, type DeliveryDeps } from './delivery';

/** What one drain of the endpoint's queue came to. */
export type DrainResult =
  /** Nothing pending: the circuit is closed. */
  | { state: 'closed' }
  /** The endpoint was deleted or disabled: nothing is drained until a re-enable. */
  | { state: 'ended' }
  /** The probe failed, or is not due yet: the next one in `retryInMs`. */
  | { state: 'failing'; retryInMs: number }
  /** Delivered as many as one drain may, or the sweeper is stopping; more are pending. */
  | { state: 'more' };

/** Deliveries one drain may make before its sweeper lets another endpoint have a turn. */
const DRAIN_MAX_DELIVERIES = 100;
const DRAIN_MAX_MS = 60_000;

/** Whether the endpoint's circuit is open now (read after its delivery was planned: see the relay). */
export async function circuitOpen(dataSource: DataSource, endpointId: string): Promise<boolean> {
  const row = await dataSource.getRepository(WebhookEndpoint).findOne({ select: { failing_since: true }, where: { id: endpointId } });
  return row?.failing_since != null;
}

/**
 * Opens the circuit of an endpoint whose delivery failed (or was left unattempted), drained at
 * `drainAtMs` at the latest: an open circuit keeps an earlier drain, and a drain under way keeps
 * its claim (it sets the next drain when it is done).
 */
export async function openCircuit(dataSource: DataSource, endpointId: string, drainAtMs: number, nowMs = Date.now()): Promise<void> {
  await dataSource.query(
    `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?),
       next_drain_at = CASE WHEN drain_lease_until IS NOT NULL AND drain_lease_until >= ? THEN next_drain_at
                            WHEN next_drain_at IS NULL OR next_drain_at > ? THEN ? ELSE next_drain_at END
     WHERE id = ?`,
    [nowMs, nowMs, drainAtMs, drainAtMs, endpointId],
  );
}

/** Ends the pending deliveries of a deleted endpoint (marked failed), and its circuit. */
export async function endPendingDeliveries(dataSource: DataSource, endpointId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query(
    "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ? WHERE endpoint_id = ? AND status = 'pending'",
    [nowMs, endpointId],
  );
  await dataSource.query('UPDATE webhook_endpoints SET failing_since = NULL, next_drain_at = NULL WHERE id = ?', [endpointId]);
}

/**
 * A re-enabled endpoint: its pending deliveries (those whose events are still kept) get a new retry
 * span from now and are drained at once, in order, behind a circuit opened now; with none pending
 * the circuit is closed.
 */
export async function resumeEndpoint(dataSource: DataSource, endpointId: string, retrySpanMs: number, nowMs = Date.now()): Promise<void> {
  await dataSource.query('UPDATE webhook_endpoints SET failing_since = NULL, next_drain_at = NULL, disabled_reason = NULL WHERE id = ?', [endpointId]);
  await dataSource.query(
    "UPDATE webhook_deliveries SET retry_until_ms = ?, next_attempt_at = ?, updated_at = ? WHERE endpoint_id = ? AND status = 'pending'",
    [nowMs + retrySpanMs, nowMs, nowMs, endpointId],
  );
  if ((await oldestPending(dataSource, endpointId, retrySpanMs)) !== null) await openCircuit(dataSource, endpointId, nowMs, nowMs);
}

/**
 * The endpoint's pending deliveries are due now, and its open circuit is drained at once (a new
 * URL). A drain under way goes on: it reads the URL for each attempt.
 */
export async function probeNow(dataSource: DataSource, endpointId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ? AND status = 'pending'", [nowMs, endpointId]);
  await dataSource.query(
    'UPDATE webhook_endpoints SET next_drain_at = ? WHERE id = ? AND failing_since IS NOT NULL AND (drain_lease_until IS NULL OR drain_lease_until < ?)',
    [nowMs, endpointId, nowMs],
  );
}

/** A delivery the relay handed over without attempting it: due now. */
export async function dueNow(dataSource: DataSource, deliveryId: string, nowMs = Date.now()): Promise<void> {
  await dataSource.query("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ? AND status = 'pending'", [nowMs, deliveryId]);
}

interface Pending {
  id: string;
  nextAttemptAt: number | null;
  attempts: number;
  /** Until when it is retried (ms): its planning plus the span, or its endpoint's re-enable's. */
  retryUntilMs: number;
}

async function oldestPending(dataSource: DataSource, endpointId: string, retrySpanMs: number): Promise<Pending | null> {
  const row = await dataSource.getRepository(WebhookDelivery).findOne({
    select: { id: true, next_attempt_at: true, attempts: true, created_at: true, retry_until_ms: true },
    where: { endpoint_id: endpointId, status: 'pending' }, order: { seq: 'ASC' },
  });
  if (!row) return null;
  return {
    id: row.id, nextAttemptAt: row.next_attempt_at === null ? null : Number(row.next_attempt_at), attempts: row.attempts,
    retryUntilMs: row.retry_until_ms === null ? Number(row.created_at) + retrySpanMs : Number(row.retry_until_ms),
  };
}

/** How a sweeper keeps its claim on the endpoint while it drains, and asks the drain to stop. */
export interface DrainControl {
  /** Called before each attempt after the first (a claim outlasts one attempt): the claim is renewed. */
  renew(): Promise<void>;
  /** The sweeper is stopping: the drain ends after the attempt in flight (`more`). */
  stopping(): boolean;
}

/**
 * Sends the endpoint's pending deliveries oldest first until one fails (the probe failed: answers
 * when to probe next), none is left (closes the circuit), or the drain's share is used (`more`).
 */
export async function drainEndpoint(deps: DeliveryDeps, retrySpanMs: number, endpointId: string, control: DrainControl): Promise<DrainResult> {
  const { dataSource } = deps;
  const endpoints = dataSource.getRepository(WebhookEndpoint);
  const startedMs = Date.now();
  const endpoint = await endpoints.findOneBy({ id: endpointId });
  if (!endpoint || endpoint.deleted_at !== null) {
    if (endpoint) await endPendingDeliveries(dataSource, endpointId);
    return { state: 'ended' };
  }
  if (endpoint.status !== 'enabled') return { state: 'ended' };
  let failingSince = endpoint.failing_since === null ? null : Number(endpoint.failing_since);
  if (failingSince !== null && startedMs - failingSince >= retrySpanMs) return disable(dataSource, endpointId);
  let delivered = 0;
  for (;;) {
    let next = await oldestPending(dataSource, endpointId, retrySpanMs);
    if (next !== null && next.retryUntilMs < Date.now()) {
      // Each delivery is retried for the span from its planning (or its endpoint's re-enable); the
      // oldest goes first, so the others are looked at only once it has run out.
      const nowMs = Date.now();
      await dataSource.query(
        "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ? WHERE endpoint_id = ? AND status = 'pending' AND COALESCE(retry_until_ms, created_at + ?) < ?",
        [nowMs, endpointId, retrySpanMs, nowMs],
      );
      next = await oldestPending(dataSource, endpointId, retrySpanMs);
    }
    if (next === null) {
      // Closed, then checked again: a delivery the relay planned while the circuit was open, and
      // left to it, is either seen here or seen by the relay with the circuit closed.
      await dataSource.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?', [endpointId]);
      if ((await oldestPending(dataSource, endpointId, retrySpanMs)) === null) return { state: 'closed' };
      failingSince = Date.now();
      await openCircuit(dataSource, endpointId, failingSince, failingSince);
      continue;
    }
    if (control.stopping() || delivered >= DRAIN_MAX_DELIVERIES || Date.now() - startedMs >= DRAIN_MAX_MS) return { state: 'more' };
    // The probe waits for its step (or for the relay's attempt in flight): an early drain (a
    // hand-over, a sweeper) makes no extra attempt.
    const waitMs = delivered === 0 && next.nextAttemptAt !== null ? next.nextAttemptAt - Date.now() : 0;
    if (waitMs > 0) return { state: 'failing', retryInMs: waitMs };
    if (delivered > 0) await control.renew();
    const outcome = await attemptDelivery(deps, { deliveryId: next.id });
    if (outcome.kind === 'delivered') {
      // A 2xx restarts the failing clock; the circuit stays open until the queue is empty, so that
      // later events keep waiting behind the older ones.
      if (delivered === 0) {
        failingSince = Date.now();
        await dataSource.query('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NOT NULL', [failingSince, endpointId]);
      }
      delivered += 1;
      continue;
    }
    if (outcome.kind !== 'failed') continue; // refused or nothing to send: that delivery is done with
    const nowMs = Date.now();
    if (nowMs - (failingSince ?? nowMs) >= retrySpanMs) return disable(dataSource, endpointId);
    // The probe's own next attempt is the next step (its attempts are the failed probes in a row:
    // after a 2xx the next one is probed, and the backoff starts again from its first step).
    const nextProbeMs = outcome.nextAttemptAtMs ?? nowMs;
    // Every waiting delivery goes out after the next probe at the earliest (the Events API shows it).
    await dataSource.query("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE endpoint_id = ? AND status = 'pending'", [nextProbeMs, endpointId]);
    return { state: 'failing', retryInMs: Math.max(0, nextProbeMs - nowMs) };
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
