// Provider faults: the sandbox acquirer is told to add latency, hold answers past the provider
// client's timeout, reset connections before or after acting, answer 429/500/502/503, or act on a
// request twice, while a Payment, a Refund and a Payout are created. Clients retry with the same
// key; the workflows must converge with exactly one provider effect per object.
import { SUCCEEDS } from '../helpers/reliability/cards';
import { COUNTS, LONG_MODE } from '../helpers/reliability/config';
import { recordFigure, recordMeasurement, sectionDone } from '../helpers/reliability/figures';
import { Ledger, expectClean, problemsAmong, type TrackedObject } from '../helpers/reliability/ledger';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import { merchantClient, newMerchant, paymentBody, payoutBody, refundBody, succeededPayment, trackCreate, type MerchantClient } from '../helpers/reliability/workload';
import { clearSandboxFaults, setSandboxFaults } from '../helpers/sandbox';

export const PROVIDER_FAULTS = 'provider faults';

interface ProviderFault {
  name: string;
  faults: Record<string, unknown>;
  /** Time-based faults are lifted once the calls they should hit have arrived. */
  liftAfterMs?: number;
}

/** Count-based faults hit the next calls: the three creates' submissions and their first look-ups. */
const FAULTS: ProviderFault[] = [
  { name: '1 s latency on every provider call', faults: { latency_ms: 1000 } },
  { name: 'time-out: answers held 9 s, past the 8 s provider client timeout', faults: { latency_ms: 9000 }, liftAfterMs: 1500 },
  { name: 'connection reset before the provider acts', faults: { reset_next: 4 } },
  { name: 'connection reset after the provider acted', faults: { reset_after_next: 4 } },
  { name: '429 with Retry-After', faults: { fail_next: 4, fail_status: 429 } },
  { name: '500', faults: { fail_next: 4, fail_status: 500 } },
  { name: '502 with an HTML body', faults: { fail_next: 4, fail_status: 502 } },
  { name: '503', faults: { fail_next: 4, fail_status: 503 } },
  { name: 'the same request acted on twice (duplicated delivery)', faults: { duplicate_next: 4 } },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Payment, a Refund (of a Payment made before the fault) and a Payout, created concurrently under one fault. */
async function createUnderFault(client: MerchantClient, fault: ProviderFault, toRefund: TrackedObject): Promise<TrackedObject[]> {
  await setSandboxFaults(fault.faults);
  const lift = fault.liftAfterMs === undefined ? null : sleep(fault.liftAfterMs).then(clearSandboxFaults);
  const label = `under ${fault.name}`;
  const created = await Promise.all([
    trackCreate(client, 'payment', paymentBody('4242424242424242'), `payment ${label}`, SUCCEEDS),
    trackCreate(client, 'refund', refundBody(toRefund.id, 1200), `refund ${label}`, SUCCEEDS),
    trackCreate(client, 'payout', payoutBody('4242424242424242'), `payout ${label}`, SUCCEEDS),
  ]);
  await lift;
  await clearSandboxFaults();
  return [toRefund, ...created.filter((o): o is TrackedObject => o !== null)];
}

export function providerFaultsSection(stack: ReliabilityStack): void {
  describe(PROVIDER_FAULTS, () => {
    afterAll(async () => { await clearSandboxFaults(); });

    it(`latency, time-outs, resets, 429/5xx and duplicated answers: converged, one effect per object (${COUNTS.providerFaultRepeats}x each)`, async () => {
      const merchant = await newMerchant(stack, 'Provider Faults Shop');
      const ledger = new Ledger();
      const client = merchantClient(() => stack.apiProcessUrl, merchant, ledger);
      const cases = Array.from({ length: COUNTS.providerFaultRepeats }, () => FAULTS).flat();
      // The Payments to refund settle before any fault is set, so the faults meet the refunds themselves.
      const toRefund = await Promise.all(cases.map((fault) => succeededPayment(client, 'visa', `refund under ${fault.name}`)));
      const objectsByFault = new Map<string, TrackedObject[]>();
      const seconds = new Map<string, number>();
      for (const [index, fault] of cases.entries()) {
        const payment = toRefund[index];
        if (!payment) continue;
        const started = Date.now();
        const objects = await createUnderFault(client, fault, payment);
        objectsByFault.set(fault.name, [...(objectsByFault.get(fault.name) ?? []), ...objects]);
        seconds.set(fault.name, (seconds.get(fault.name) ?? 0) + (Date.now() - started) / 1000);
      }

      const report = await stack.audit(ledger, [merchant]);
      for (const fault of FAULTS) {
        const objects = objectsByFault.get(fault.name) ?? [];
        recordFigure({ section: PROVIDER_FAULTS, fault: `${fault.name} (payment, refund, payout)`, tried: 3 * COUNTS.providerFaultRepeats, objects: objects.length, ...problemsAmong(report, objects) });
      }
      recordMeasurement(PROVIDER_FAULTS, `time until all three creates had their 2xx, per fault: ${[...seconds.entries()].map(([name, s]) => `${name.split(/[:(]/)[0]!.trim()} ${s.toFixed(1)} s`).join('; ')}`);
      sectionDone(PROVIDER_FAULTS);
      expectClean(report);
    }, LONG_MODE ? 1_800_000 : 600_000);
  });
}
