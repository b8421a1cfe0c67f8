// `npm run topology`: docker-compose.yml as local processes, in the foreground until Ctrl-C
// (docs/deployment.md, "The same topology without Docker").
import { startTopology } from './run';

async function main(): Promise<void> {
  const topology = await startTopology();
  process.stdout.write(`API (through haproxy): ${topology.url}\nTemporal: ${topology.temporalAddress}\nprocesses: ${[...topology.processes.entries()].map(([name, p]) => `${name}=${p.pid}`).join(' ')}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    topology.stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`topology: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
