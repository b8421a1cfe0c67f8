// Entry point of the sandbox acquirer: `npm run sandbox`. State is in memory; a restart forgets it.
//   SANDBOX_PORT (3100), SANDBOX_SETTLE_MS (1000), SANDBOX_PUBLIC_URL (http://127.0.0.1:<port>),
//   SANDBOX_NOTIFY_SECRET ('sandbox-dev-secret'), SANDBOX_CONTROL_TOKEN (unset: /_sandbox/* off)
import { assertSecrets, config } from '../../config';
import { startSandbox } from './app';

function intFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}`);
  }
  return value;
}

async function main(): Promise<void> {
  assertSecrets(['SANDBOX_NOTIFY_SECRET', 'SANDBOX_CONTROL_TOKEN']);
  const port = intFromEnv('SANDBOX_PORT', 3100, 0, 65535);
  const settleMs = intFromEnv('SANDBOX_SETTLE_MS', 1000, 0, 24 * 60 * 60 * 1000);
  const publicUrl = process.env.SANDBOX_PUBLIC_URL || undefined;
  const { sandboxNotifySecret: notifySecret, sandboxControlToken: controlToken } = config();

  const sandbox = await startSandbox({
    port,
    host: '127.0.0.1',
    settleMs,
    publicUrl,
    notifySecret,
    controlToken,
    log: (line) => console.log(line),
  });
  console.log(
    `sandbox acquirer listening on ${sandbox.url} (public ${sandbox.state.settings.publicUrl}, settle ${settleMs} ms, state in memory, `
    + `control endpoints ${controlToken ? 'on, with SANDBOX_CONTROL_TOKEN' : 'off: set SANDBOX_CONTROL_TOKEN'})`,
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`sandbox acquirer stopping (${signal})`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(`sandbox acquirer failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
