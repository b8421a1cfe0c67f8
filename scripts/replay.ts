// `npm run replay -- <history.json | dir | --workflow-id ID | --query "...">`: replays histories
// against the current workflow code; exits 1 when any workflow is nondeterministic. Payloads are
// decoded with the configured key ring (TEMPORAL_CODEC_KEYS), or with `--test-key` the
// repository's test key that the committed histories in test/replay/histories are encrypted with.
import { parseArgs } from 'node:util';
import { config } from '../src/config';
import { TEST_CODEC_KEYS } from '../test/replay/codec-test-key';
import { connectTemporal } from '../src/temporal/client';
import { fetchHistories, readHistoryFiles, replayHistories, type HistoryFile } from '../src/replay/histories';
import { workflowBundle } from '../workers/worker';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'workflow-id': { type: 'string' }, query: { type: 'string' }, 'test-key': { type: 'boolean' } } });
  let histories: HistoryFile[];
  if (values['workflow-id'] || values.query) {
    const cfg = config();
    const client = await connectTemporal(cfg);
    try {
      const query = values.query ?? `WorkflowId = '${values['workflow-id']!.replace(/'/g, '')}'`;
      histories = await fetchHistories(client, query);
    } finally {
      await client.connection.close();
    }
  } else if (positionals.length) {
    histories = positionals.flatMap((p) => readHistoryFiles(p));
  } else {
    process.stderr.write('usage: npm run replay -- [--test-key] <history.json | directory | --workflow-id ID | --query "...">\n');
    return 2;
  }
  if (!histories.length) {
    process.stderr.write('no histories found\n');
    return 2;
  }
  const outcomes = await replayHistories(await workflowBundle(), histories, values['test-key'] ? TEST_CODEC_KEYS : config().temporalCodec);
  // A key missing from the ring fails a replay too, but is no nondeterminism: say which it is.
  const label = (o: (typeof outcomes)[number]) => (o.ok ? 'ok' : /DeterminismViolation|Nondeterminism|TMPRL1100/i.test(o.error ?? '') ? 'NONDETERMINISTIC' : 'FAILED');
  for (const o of outcomes) process.stdout.write(`${label(o).padEnd(16)}  ${o.workflowId}${o.error ? `\n    ${o.error}` : ''}\n`);
  const bad = outcomes.filter((o) => !o.ok).length;
  process.stdout.write(`${outcomes.length - bad} passed, ${bad} failed\n`);
  return bad ? 1 : 0;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`replay failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
