// The reliability and security suite (docs/reliability.md). One file, so its parts share one stack
// of their own and run in this order; the secrets scan comes last and sees everything the others
// left behind. `RELIABILITY_LONG=1` changes the counts, never which tests run.
import { writeFigures } from '../helpers/reliability/figures';
import { ReliabilityStack } from '../helpers/reliability/stack';
import { CONCURRENCY, concurrencySection } from './concurrency';
import { HOSTILE_INPUT, hostileInputSection } from './hostile-input';
import { PROCESS_FAULTS, processFaultsSection } from './process-faults';
import { PROVIDER_FAULTS, providerFaultsSection } from './provider-faults';

const stack = new ReliabilityStack();
const startedAt = new Date();

beforeAll(async () => {
  await stack.start();
}, 300_000);

afterAll(async () => {
  writeFigures(startedAt, [PROVIDER_FAULTS, CONCURRENCY, PROCESS_FAULTS, HOSTILE_INPUT]);
  await stack.stop();
}, 120_000);

providerFaultsSection(stack);
concurrencySection(stack);
processFaultsSection(stack);
hostileInputSection(stack);
