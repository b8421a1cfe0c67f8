// Secrets, after everything else: every card number and CVC the suite sent and every API key it
// was given are looked for in a dump of the whole database (every table, every column), every log
// file, the history of every workflow (payloads decoded), and the raw files of the Temporal store
// and of the MariaDB datadir. API keys must exist only as their hashes.
import path from 'node:path';
import { hashApiKey } from '../../src/domain/api-keys';
import { RELIABILITY, RELIABILITY_LOG_DIR } from '../helpers/reliability/config';
import { recordFigure, recordMeasurement, sectionDone } from '../helpers/reliability/figures';
import { allExecutions, findSecrets, scanRawFiles, scanTexts, secretNeedles, usedApiKeys, type Needle, type Scan } from '../helpers/reliability/secrets';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import { decodedText, dumpDatabase, historyText, readLogs } from '../helpers/scan';

export const SECRETS = 'secrets';

/** Every workflow's history (latest run; the raw store scan covers earlier runs), payloads decoded, scanned one by one. */
async function scanHistories(stack: ReliabilityStack, needles: Needle[]): Promise<Scan & { runs: number; sawCanary: boolean }> {
  const client = stack.api.deps.temporal;
  const executions = await allExecutions(client);
  const queue = [...new Set(executions.map((e) => e.workflowId))];
  const scan = { place: 'workflow histories, payloads decoded', objects: queue.length, hits: [] as string[], runs: executions.length, sawCanary: false };
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let id = queue.shift(); id; id = queue.shift()) {
      const text = await historyText(client, id);
      scan.hits.push(...findSecrets(text, needles).map((label) => `${label} in the history of ${id}`));
      // The decoding works: masked cards are readable in the payloads.
      if (/last4\\*":\\*"4242/.test(text)) scan.sawCanary = true;
    }
  }));
  return scan;
}

export function secretsSection(stack: ReliabilityStack): void {
  describe(SECRETS, () => {
    it('no card number, CVC or API key in the database, logs, workflow histories or stores on disk; keys only as hashes', async () => {
      const needles = secretNeedles();
      const dump = await dumpDatabase(stack.api.deps.dataSource);
      const tables = Object.entries(dump).map(([table, rows]): [string, string] => [`table ${table}`, decodedText(rows)]);
      const rows = Object.values(dump).reduce((sum, r) => sum + r.length, 0);
      const logs = Object.entries(readLogs());
      const histories = await scanHistories(stack, needles);
      const temporalStore = scanRawFiles('Temporal store (SQLite files), raw bytes', path.dirname(RELIABILITY.temporalDbFile), needles, 'tok_');
      const mariadbFiles = scanRawFiles('MariaDB datadir (tables, redo and undo logs), raw bytes', RELIABILITY.mariadb.dataDir, needles);

      // The scans must be able to see: masked cards and vault tokens are where they should be.
      expect(tables.find(([name]) => name === 'table payments')?.[1]).toContain('"card_last4":"4242"');
      expect({ histories: histories.sawCanary, temporalStore: temporalStore.sawCanary }).toEqual({ histories: true, temporalStore: true });

      const scans: Scan[] = [
        { ...scanTexts('database dump', tables, needles), objects: rows },
        scanTexts('log files', logs, needles),
        histories,
        temporalStore,
        mariadbFiles,
      ];
      const storedHashes = new Set((await stack.api.deps.dataSource.query('SELECT key_hash FROM api_keys') as Array<{ key_hash: string }>).map((r) => r.key_hash));
      const keys = usedApiKeys();
      const unhashed = keys.filter((key) => !storedHashes.has(hashApiKey(key))).map((key) => `no hash stored for ${key.slice(0, 12)}...`);

      for (const scan of scans) {
        recordFigure({ section: SECRETS, fault: `${needles.length} needles (card numbers, CVCs, API keys) in the ${scan.place}`, tried: needles.length, objects: scan.objects, lost: 0, duplicated: 0, wrong: scan.hits.length });
      }
      recordFigure({ section: SECRETS, fault: 'API keys of the suite stored as SHA-256 hashes (and in the clear nowhere above)', tried: keys.length, objects: storedHashes.size, lost: 0, duplicated: 0, wrong: unhashed.length });
      recordMeasurement(SECRETS, `${Object.keys(dump).length} tables (${rows} rows), ${logs.length} log files in ${path.relative(process.cwd(), RELIABILITY_LOG_DIR)}, `
        + `${histories.objects} workflows (${histories.runs} runs), ${temporalStore.objects} Temporal store files and ${mariadbFiles.objects} MariaDB files scanned`);
      sectionDone(SECRETS);
      expect({ hits: scans.flatMap((s) => s.hits), unhashed }).toEqual({ hits: [], unhashed: [] });
    }, 600_000);
  });
}
