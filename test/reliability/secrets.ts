// Secrets, after everything else: every card number and CVC the suite sent and every API key it
// was given are looked for in a dump of the whole database (every table, every column), every log
// file, the history of every workflow (payloads decrypted), and the raw files of the Temporal store
// and of the MariaDB datadir. API keys must exist only as their hashes. The personal data of the
// workload (names, e-mails, IP addresses, descriptions) is looked for in every history as the
// server keeps it (nothing decrypted) and in the raw Temporal store: it must be there encrypted only.
import path from 'node:path';
import { hashApiKey } from '../../src/domain/api-keys';
import { RELIABILITY, RELIABILITY_LOG_DIR } from '../helpers/reliability/config';
import { recordFigure, recordMeasurement, sectionDone } from '../helpers/reliability/figures';
import {
  allExecutions, findSecrets, personalNeedles, scanRawFiles, scanTexts, secretNeedles, usedApiKeys, type Needle, type Scan,
} from '../helpers/reliability/secrets';
import type { ReliabilityStack } from '../helpers/reliability/stack';
import { decodedText, dumpDatabase, historyText, rawHistoryText, readLogs } from '../helpers/scan';

export const SECRETS = 'secrets';

type HistoryScans = { decrypted: Scan & { runs: number; sawCanary: boolean; personalFound: Set<string> }; stored: Scan };

/**
 * Every workflow's history (latest run; the raw store scan covers earlier runs), one by one: card
 * data in the decrypted payloads, personal data in the history as stored.
 */
async function scanHistories(stack: ReliabilityStack, needles: Needle[], personal: Needle[]): Promise<HistoryScans> {
  const client = stack.api.deps.temporal;
  const executions = await allExecutions(client);
  const queue = [...new Set(executions.map((e) => e.workflowId))];
  const decrypted = { place: 'workflow histories, payloads decrypted', objects: queue.length, hits: [] as string[], runs: executions.length, sawCanary: false, personalFound: new Set<string>() };
  const stored = { place: 'workflow histories as stored (nothing decrypted)', objects: queue.length, hits: [] as string[] };
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let id = queue.shift(); id; id = queue.shift()) {
      const text = await historyText(client, id);
      decrypted.hits.push(...findSecrets(text, needles).map((label) => `${label} in the history of ${id}`));
      // The decryption works: masked cards, and the personal data the raw scan must not find, are readable.
      if (/last4\\*":\\*"4242/.test(text)) decrypted.sawCanary = true;
      for (const label of findSecrets(text, personal)) decrypted.personalFound.add(label);
      stored.hits.push(...findSecrets(await rawHistoryText(client, id), personal).map((label) => `${label} in the stored history of ${id}`));
    }
  }));
  return { decrypted, stored };
}

export function secretsSection(stack: ReliabilityStack): void {
  describe(SECRETS, () => {
    it('no card number, CVC, API key or webhook secret in the database, logs, workflow histories or stores on disk; keys only as hashes; personal data in Temporal only encrypted', async () => {
      const needles = secretNeedles();
      const personal = personalNeedles();
      const dump = await dumpDatabase(stack.api.deps.dataSource);
      const tables = Object.entries(dump).map(([table, rows]): [string, string] => [`table ${table}`, decodedText(rows)]);
      const rows = Object.values(dump).reduce((sum, r) => sum + r.length, 0);
      const logs = Object.entries(readLogs());
      const histories = await scanHistories(stack, needles, personal);
      // Workflow ids are plaintext: the raw scan reads the store's history and visibility files.
      const temporalStore = scanRawFiles('Temporal store (SQLite files), raw bytes', path.dirname(RELIABILITY.temporalDbFile), [...needles, ...personal], 'pay_');
      const mariadbFiles = scanRawFiles('MariaDB datadir (tables, redo and undo logs), raw bytes', RELIABILITY.mariadb.dataDir, needles);

      // The scans must be able to see: masked cards and workflow ids are where they should be, and
      // every kind of personal data the workload sent is in the histories, decrypted.
      expect(tables.find(([name]) => name === 'table payments')?.[1]).toContain('"card_last4":"4242"');
      expect({ histories: histories.decrypted.sawCanary, temporalStore: temporalStore.sawCanary }).toEqual({ histories: true, temporalStore: true });
      expect([...histories.decrypted.personalFound].sort()).toEqual(personal.map((n) => n.label).sort());

      const scans: Scan[] = [
        { ...scanTexts('database dump', tables, needles), objects: rows },
        scanTexts('log files', logs, needles),
        histories.decrypted,
        histories.stored,
        temporalStore,
        mariadbFiles,
      ];
      const storedHashes = new Set((await stack.api.deps.dataSource.query('SELECT key_hash FROM api_keys') as Array<{ key_hash: string }>).map((r) => r.key_hash));
      const keys = usedApiKeys();
      const unhashed = keys.filter((key) => !storedHashes.has(hashApiKey(key))).map((key) => `no hash stored for ${key.slice(0, 12)}...`);

      for (const scan of scans) {
        const kinds = scan === histories.stored ? 'personal data: names, e-mails, IP addresses, descriptions, reasons'
          : scan === temporalStore ? 'card numbers, CVCs, API keys, personal data' : 'card numbers, CVCs, API keys';
        const count = scan === histories.stored ? personal.length : scan === temporalStore ? needles.length + personal.length : needles.length;
        recordFigure({ section: SECRETS, fault: `${count} needles (${kinds}) in the ${scan.place}`, tried: count, objects: scan.objects, lost: 0, duplicated: 0, wrong: scan.hits.length });
      }
      recordFigure({ section: SECRETS, fault: 'API keys of the suite stored as SHA-256 hashes (and in the clear nowhere above)', tried: keys.length, objects: storedHashes.size, lost: 0, duplicated: 0, wrong: unhashed.length });
      recordMeasurement(SECRETS, `${Object.keys(dump).length} tables (${rows} rows), ${logs.length} log files in ${path.relative(process.cwd(), RELIABILITY_LOG_DIR)}, `
        + `${histories.decrypted.objects} workflows (${histories.decrypted.runs} runs), ${temporalStore.objects} Temporal store files and ${mariadbFiles.objects} MariaDB files scanned`);
      sectionDone(SECRETS);
      expect({ hits: scans.flatMap((s) => s.hits), unhashed }).toEqual({ hits: [], unhashed: [] });
    }, 600_000);
  });
}
