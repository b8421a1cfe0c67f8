// The reliability and security suite (docs/reliability.md). One file, so its parts share one stack
// of their own and run in this order; the secrets scan comes last and sees everything the others
// left behind. `RELIABILITY_LONG=1` changes the counts, never which tests run.
import { writeFigures } from '../helpers/reliability/figures';
import { ReliabilityStack } from '../helpers/reliability/stack';
import { CONCURRENCY, concurrencySection } from './concurrency';
import { HOSTILE_INPUT, hostileInputSection } from './hostile-input';
import { ISOLATION, isolationSection } from './isolation';
import { PROCESS_FAULTS, processFaultsSection } from './process-faults';
import { PROVIDER_FAULTS, providerFaultsSection } from './provider-faults';
import { RATE_LIMIT, rateLimitSection } from './rate-limit';
import { SECRETS, secretsSection } from './secrets';

const stack = new ReliabilityStack();
const startedAt = new Date();

// Up to an hour waiting for another run of the suite on this machine, then the stack's start.
beforeAll(async () => {
  await stack.start();
}, 3_900_000);

afterAll(async () => {
  writeFigures(startedAt, [PROCESS_FAULTS, PROVIDER_FAULTS, CONCURRENCY, HOSTILE_INPUT, ISOLATION, RATE_LIMIT, SECRETS]);
  await stack.stop();
}, 120_000);

processFaultsSection(stack);
providerFaultsSection(stack);
concurrencySection(stack);
hostileInputSection(stack);
isolationSection(stack);
rateLimitSection(stack);
secretsSection(stack);
