// The floor of this design: Update-with-Start of a workflow whose update runs one no-op activity
// and answers. Same activity options as PaymentWorkflow's synchronous path, nothing else.
import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BaselineActivities } from './activities';

export const runUpdate = defineUpdate<{ ok: true }, []>('run');

const { noop } = proxyActivities<BaselineActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
});

export async function BaselineWorkflow(): Promise<void> {
  let answered = false;
  setHandler(runUpdate, async () => {
    await noop();
    answered = true;
    return { ok: true as const };
  });
  await condition(() => answered);
}
