// The refund targets of the report: a refund against a frictionless create at 10/s in the
// same run, and one hot Payment refunded 10 times a second without a queue.
import type { StepResult } from './scenarios';
import type { TargetCheck } from './lib/target-check';

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** CPU ms per 2xx of every process the bench started (the rest of the machine, other users' work, left out). */
export function cpuPerAnswer(step: StepResult): number | null {
  if (!step.cpu || step.ok === 0) return null;
  const seconds = Object.entries(step.cpu.seconds).filter(([name]) => name !== 'total' && name !== 'other').reduce((sum, [, v]) => sum + v, 0);
  return (1000 * seconds) / step.ok;
}

export function refundTargets(steps: StepResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const create = steps.find((s) => s.scenario.startsWith('POST /v1/payments frictionless') && s.targetRate === 10);
  const spread = steps.find((s) => s.scenario.startsWith('POST /v1/refunds, spread') && s.targetRate === 10);
  if (create && spread) {
    checks.push({ target: 'refund p50 <= 1.5x create p50 at 10/s', measured: `${ms(spread.p50)} vs ${ms(create.p50)} ms = ${(spread.p50 / create.p50).toFixed(2)}x`, met: spread.p50 <= 1.5 * create.p50 });
    checks.push({ target: 'refund p99 <= 2x create p99 at 10/s', measured: `${ms(spread.p99)} vs ${ms(create.p99)} ms = ${(spread.p99 / create.p99).toFixed(2)}x`, met: spread.p99 <= 2 * create.p99 });
    const [refundCpu, createCpu] = [cpuPerAnswer(spread), cpuPerAnswer(create)];
    if (refundCpu !== null && createCpu !== null) {
      checks.push({ target: 'CPU per refund <= 1.3x CPU per create at 10/s (bench processes)', measured: `${ms(refundCpu)} vs ${ms(createCpu)} ms = ${(refundCpu / createCpu).toFixed(2)}x`, met: refundCpu <= 1.3 * createCpu });
    }
  }
  const hot = steps.find((s) => s.scenario.startsWith('POST /v1/refunds, one hot Payment') && s.targetRate === 10);
  if (hot) {
    const queued = hot.saturated || hot.cutOff;
    checks.push({ target: 'one hot Payment takes 10 refunds/s without a queue (p99 < 250 ms)', measured: `p99 ${ms(hot.p99)} ms, ${hot.throughput.toFixed(1)}/s answered${queued ? ', could not keep the rate' : ''}`, met: hot.p99 < 250 && !queued });
  }
  return checks;
}
