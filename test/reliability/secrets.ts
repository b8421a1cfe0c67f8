// Secrets, after everything else: every card number and CVC the suite sent and every API key it
// was given are looked for in a dump of the whole database (every table, every column), every log
// file, the history of every workflow (payloads decoded), and the raw files of the Temporal store
// and of the MariaDB datadir. API keys must exist only as their hashes.
import path from 'node:path';
import { hashApiKey } from '../../src/domain/api-keys';
import { RELIABILITY, RELIABILITY_LOG_DIR } from '../helpers/reliability/config';
import { recordFigure, recordMeasurement, sectionDone } from '../helpers/reliability/figures';
import { allExecutions, findSecrets, rawFiles, secretNeedles, usedApiKeys, type Needle } from '../helpers/reliability/secrets';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import { decodedText, dumpDatabase, historyText, readLogs } from '../helpers/scan';

export const SECRETS = 'secrets';

interface Scan {
  place: string;
  /** What was read: tables and rows, files, workflows. */
  objects: number;
  hits: string[];
}

function scanTexts(place: string, texts: Array<[string, string]>, needles: Needle[]): Scan {
  const hits = texts.flatMap(([name, text]) => findSecrets(text, needles).map((label) => `${label} in ${name}`));
  return { place, objects: texts.length, hits };
}

async function historyTexts(stack: ReliabilityStack): Promise<{ texts: Array<[string, string]>; runs: number }> {
  const executions = await allExecutions(stack.api.deps.temporal);
  const ids = [...new Set(executions.map((e) => e.workflowId))];
  const texts: Array<[string, string]> = [];
  const queue = [...ids];
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let id = queue.shift(); id; id = queue.shift()) texts.push([id, await historyText(stack.api.deps.temporal, id)]);
  }));
  return { texts, runs: executions.length };
}

export function secretsSection(stack: ReliabilityStack): void {
  describe(SECRETS, () => {
    it('no card number, CVC or API key in the database, logs, workflow histories or stores on disk; keys only as hashes', async () => {
      const needles = secretNeedles();
      const dump = await dumpDatabase(stack.api.deps.dataSource);
      const tables = Object.entries(dump).map(([table, rows]): [string, string] => [`table ${table}`, decodedText(rows)]);
      const rows = Object.values(dump).reduce((sum, r) => sum + r.length, 0);
      const logs = Object.entries(readLogs());
      const histories = await historyTexts(stack);
      const temporalStore = rawFiles(path.dirname(RELIABILITY.temporalDbFile)).map(({ file, text }): [string, string] => [file, text]);
      const mariadbFiles = rawFiles(RELIABILITY.mariadb.dataDir).map(({ file, text }): [string, string] => [file, text]);

      // The scans must be able to see: masked cards and ids are there to be found.
      expect(tables.find(([name]) => name === 'table payments')?.[1]).toContain('"card_last4":"4242"');
      expect(histories.texts.some(([, text]) => /last4\\*":\\*"4242/.test(text))).toBe(true);
      expect(temporalStore.some(([, text]) => text.includes('tok_'))).toBe(true);

      const scans: Scan[] = [
        { ...scanTexts('database dump', tables, needles), objects: rows },
        scanTexts('log files', logs, needles),
        scanTexts('workflow histories, payloads decoded', histories.texts, needles),
        scanTexts('Temporal store (SQLite files), raw bytes', temporalStore, needles),
        scanTexts('MariaDB datadir (tables, redo and undo logs), raw bytes', mariadbFiles, needles),
      ];
      const storedHashes = new Set((await stack.api.deps.dataSource.query('SELECT key_hash FROM api_keys') as Array<{ key_hash: string }>).map((r) => r.key_hash));
      const keys = usedApiKeys();
      const unhashed = keys.filter((key) => !storedHashes.has(hashApiKey(key))).map((key) => `no hash stored for ${key.slice(0, 12)}...`);

      for (const scan of scans) {
        recordFigure({ section: SECRETS, fault: `${needles.length} needles (card numbers, CVCs, API keys) in the ${scan.place}`, tried: needles.length, objects: scan.objects, lost: 0, duplicated: 0, wrong: scan.hits.length });
      }
      recordFigure({ section: SECRETS, fault: 'API keys of the suite stored as SHA-256 hashes (and in the clear nowhere above)', tried: keys.length, objects: storedHashes.size, lost: 0, duplicated: 0, wrong: unhashed.length });
      recordMeasurement(SECRETS, `${Object.keys(dump).length} tables (${rows} rows), ${logs.length} log files in ${path.relative(process.cwd(), RELIABILITY_LOG_DIR)}, `
        + `${histories.texts.length} workflows (${histories.runs} runs), ${temporalStore.length} Temporal store files and ${mariadbFiles.length} MariaDB files scanned`);
      sectionDone(SECRETS);
      expect({ hits: scans.flatMap((s) => s.hits), unhashed }).toEqual({ hits: [], unhashed: [] });
    }, 600_000);
  });
}
