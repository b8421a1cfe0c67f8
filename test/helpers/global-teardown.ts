import type { DevServer } from '../../src/temporal/dev-server';
import type { ManagedProcess } from './processes';

export default async function globalTeardown(): Promise<void> {
  const services = (globalThis as Record<string, unknown>).__TEST_SERVICES__ as
    { temporal: DevServer; codecServer: ManagedProcess; sandbox: ManagedProcess; worker: ManagedProcess } | undefined;
  if (!services) return;
  await services.worker.stop();
  await services.sandbox.stop();
  await services.temporal.stop();
  await services.codecServer.stop();
}
