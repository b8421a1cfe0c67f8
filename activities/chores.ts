// The periodic chores' activities (workflows/chores.ts): each deletes what is past its retention
// and answers how much.
import type { CvcSweepResult, PurgeResult } from '../contracts/chores';
import { purgeExpiredEvents } from '../src/services/events';
import { IdempotencyStore } from '../src/services/idempotency';
import type { ActivityDeps } from './deps';

export function createChoreActivities(deps: Pick<ActivityDeps, 'dataSource' | 'vault' | 'metrics' | 'logger'>) {
  return {
    async purgeIdempotencyKeys(): Promise<PurgeResult> {
      return { deleted: await new IdempotencyStore(deps.dataSource).purgeExpired() };
    },

    /** Events older than `retentionDays`, with their deliveries and attempts (docs/events.md, "Retention"). */
    async purgeEvents(retentionDays: number): Promise<PurgeResult> {
      return { deleted: await purgeExpiredEvents(deps.dataSource, retentionDays) };
    },

    /** Forgets the CVCs sealed between `sinceSeconds` and `maxAgeSeconds` ago: no authorization can still use them. */
    async forgetCvcs(maxAgeSeconds: number, sinceSeconds: number): Promise<CvcSweepResult> {
      const cutoff = Math.floor(Date.now() / 1000) - maxAgeSeconds;
      const since = Math.min(sinceSeconds, cutoff);
      const forgotten = await deps.vault.forgetCvcsSealedBefore(cutoff, since);
      if (forgotten > 0) {
        deps.metrics.cvcsForgotten.inc(forgotten);
        deps.logger.warn({ forgotten }, 'vault sweep forgot CVCs older than any authorization could need');
      }
      return { forgotten, since, cutoff };
    },
  };
}

export type ChoreActivities = ReturnType<typeof createChoreActivities>;
