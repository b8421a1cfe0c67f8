// The circuit sweeper: every worker looks, every sweep interval, for open circuits whose drain is
// due (`webhook_endpoints.next_drain_at`), claims each with one conditional UPDATE, and drains it
// (src/webhooks/circuit.ts). One drain per endpoint at a time, across processes: the claim sets
// the drain time to the end of a lease, renewed after each attempt, so that a claimed endpoint is
// not due for anyone else, and the drain of a process that died comes due again when its lease
// runs out. When it is done the drain time becomes the next probe's (failing), now (more to send),
// or nothing (closed, disabled, deleted).
//
// Why not a workflow per circuit: when one outage opens many circuits at once, their starts, tasks
// and activity retries loaded the Temporal server that the payments share (bench/NOTES.md,
// "Webhook endpoints"). A circuit is a row and a probe is a POST; all of it is in the database.
import { LessThanOrEqual } from 'typeorm';
import { WebhookEndpoint } from '../db/entities';
import type { Logger } from '../observability/logger';
import { every, type Repeating } from '../background/every';
import { drainEndpoint, type DrainResult } from './circuit';
import type { DeliveryDeps } from './delivery';

export interface CircuitSweeperSettings {
  sweepIntervalMs: number;
  /** Endpoints one process drains at once. */
  concurrency: number;
  /** How long a claim holds without renewal: above the longest attempt, with room. */
  leaseMs: number;
  retrySpanMs: number;
}

export class CircuitSweeper {
  private readonly draining = new Set<Promise<void>>();
  private sweeper: Repeating | null = null;
  private stopped = false;

  constructor(private readonly deps: DeliveryDeps & { logger: Logger }, private readonly settings: CircuitSweeperSettings) {}

  /** Sweeps every `sweepIntervalMs` until `stop()`. */
  start(): void {
    this.sweeper ??= every(this.settings.sweepIntervalMs, () => this.sweep(), (error) => this.deps.logger.warn({ err: String(error) }, 'webhook circuit sweep failed'));
  }

  /** Claims the due circuits this process has room for and starts their drains; answers how many. */
  async sweep(nowMs = Date.now()): Promise<number> {
    const room = this.settings.concurrency - this.draining.size;
    if (this.stopped || room <= 0) return 0;
    const due = (await this.deps.dataSource.query(
      'SELECT id FROM webhook_endpoints WHERE next_drain_at <= ? ORDER BY next_drain_at LIMIT ?', [nowMs, room],
    )) as Array<{ id: string }>;
    let claimed = 0;
    for (const { id } of due) {
      if (!(await this.claim(id, nowMs))) continue;
      claimed += 1;
      const run: Promise<void> = this.drain(id).finally(() => this.draining.delete(run));
      this.draining.add(run);
    }
    return claimed;
  }

  /** Drains under way finish their attempt in flight and hand their endpoint back, due now. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sweeper?.stop();
    this.sweeper = null;
    await Promise.allSettled([...this.draining]);
  }

  private async claim(endpointId: string, nowMs: number): Promise<boolean> {
    const leaseUntil = nowMs + this.settings.leaseMs;
    const claimed = await this.deps.dataSource.getRepository(WebhookEndpoint)
      .update({ id: endpointId, next_drain_at: LessThanOrEqual(nowMs) }, { next_drain_at: leaseUntil, drain_lease_until: leaseUntil });
    return claimed.affected === 1;
  }

  private async drain(endpointId: string): Promise<void> {
    const { dataSource } = this.deps;
    let result: DrainResult = { state: 'more' };
    try {
      do {
        result = await drainEndpoint(this.deps, this.settings.retrySpanMs, endpointId, {
          renew: async () => {
            const leaseUntil = Date.now() + this.settings.leaseMs;
            await dataSource.query('UPDATE webhook_endpoints SET next_drain_at = ?, drain_lease_until = ? WHERE id = ?', [leaseUntil, leaseUntil, endpointId]);
          },
          stopping: () => this.stopped,
        });
      } while (result.state === 'more' && !this.stopped);
    } catch (error) {
      // The database away, say: the lease runs out and a sweeper tries again then.
      this.deps.logger.warn({ err: String(error), endpointId }, 'webhook circuit drain failed');
      return;
    }
    await this.release(endpointId, result);
  }

  private async release(endpointId: string, result: DrainResult): Promise<void> {
    const nowMs = Date.now();
    if (result.state === 'closed') {
      // A failure the relay met after the drain closed the circuit opened it again: drained at once
      // (its probe still waits for its delivery's next attempt).
      await this.deps.dataSource.query(
        'UPDATE webhook_endpoints SET drain_lease_until = NULL, next_drain_at = CASE WHEN failing_since IS NULL THEN NULL ELSE ? END WHERE id = ?',
        [nowMs, endpointId],
      );
      return;
    }
    const next = result.state === 'failing' ? nowMs + result.retryInMs : result.state === 'more' ? nowMs : null;
    await this.deps.dataSource.query('UPDATE webhook_endpoints SET drain_lease_until = NULL, next_drain_at = ? WHERE id = ?', [next, endpointId]);
  }
}
