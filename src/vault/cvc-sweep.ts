// Each worker forgets the CVCs that no authorization can still use (`cvcMaxAgeSeconds`): the
// first run of a process reads every age, later runs only the cards that aged past the cutoff since.
import { every, type Repeating } from '../background/every';
import type { Logger } from '../observability/logger';
import type { WorkerMetrics } from '../observability/worker-metrics';
import { cvcMaxAgeSeconds, type CardVaultStore } from './card-vault';

export interface CvcSweepDeps {
  vault: CardVaultStore;
  metrics: WorkerMetrics;
  logger: Logger;
}

export function startCvcSweep(deps: CvcSweepDeps, settings: { intervalSeconds: number; paymentActionTtlSeconds: number }): Repeating {
  let sweptBefore = 0;
  return every(settings.intervalSeconds * 1000, async () => {
    const cutoff = Math.floor(Date.now() / 1000) - cvcMaxAgeSeconds(settings.paymentActionTtlSeconds);
    const forgotten = await deps.vault.forgetCvcsSealedBefore(cutoff, sweptBefore);
    sweptBefore = cutoff;
    if (forgotten === 0) return;
    deps.metrics.cvcsForgotten.inc(forgotten);
    deps.logger.warn({ forgotten }, 'vault sweep forgot CVCs older than any authorization could need');
  }, (error) => deps.logger.warn({ err: String(error) }, 'vault sweep failed'));
}
