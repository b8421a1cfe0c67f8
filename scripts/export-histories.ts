// `npm run histories:export -- [--query "..."] [--out dir]`: writes histories of finished runs as
// JSON files, ready for `npm run replay` and for test/replay/.
import { parseArgs } from 'node:util';
import { config } from '../src/config';
import { connectTemporal } from '../src/temporal/client';
import { exportHistories } from '../src/replay/histories';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { query: { type: 'string' }, out: { type: 'string' } } });
  const cfg = config();
  const client = await connectTemporal(cfg);
  try {
    const written = await exportHistories(client, values.query ?? "ExecutionStatus != 'Running'", values.out ?? 'histories');
    process.stdout.write(`${written.length} histories written\n${written.map((f) => `  ${f}`).join('\n')}\n`);
  } finally {
    await client.connection.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`export failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
