// Entry point of the sandbox acquirer: `npm run sandbox`. State is in memory; a restart forgets it.
// Settings: ./config.ts (docs/configuration.md, "Sandbox acquirer").
import { assertSecrets } from '../../config';
import { startSandbox } from './app';
import { sandboxConfig } from './config';

async function main(): Promise<void> {
  assertSecrets(['SANDBOX_NOTIFY_SECRET', 'SANDBOX_CONTROL_TOKEN']);
  const { port, settleMs, publicUrl, notifySecret, controlToken, http } = sandboxConfig();

  const sandbox = await startSandbox({
    port,
    host: '127.0.0.1',
    settleMs,
    publicUrl,
    notifySecret,
    controlToken,
    http,
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
