// Frozen with the migrations (docs/architecture.md, "Layers"): the payout search index's
// computations as migrations 1764500000000, 1764800000000 and 1765000000000 backfilled them when
// they were written. The live read model (src/read-models/payout-search-index.ts) may change;
// these may not, or a database migrated today would end in another state than one migrated then.
// A later migration that needs other computations brings its own copy. Never edit.
import type { EntityManager } from 'typeorm';
import { isMysql } from './dialect';

const SUFFIX_CHARS = 12;
const GRAM_CHARS = 2;
const FIELD_SEPARATOR = '\n';
const CREATED_BUCKET_SECONDS = 3600;

/** The indexed suffixes of a `search_text` value, with their character positions in it. */
function searchSuffixes(searchText: string): Array<{ suffix: Buffer; pos: number }> {
  const chars = Array.from(searchText); // code points, as the database counts characters
  const out: Array<{ suffix: Buffer; pos: number }> = [];
  let fieldEnd = 0;
  for (let pos = 0; pos < chars.length; pos += 1) {
    if (chars[pos] === FIELD_SEPARATOR) continue;
    if (fieldEnd <= pos) {
      fieldEnd = pos;
      while (fieldEnd < chars.length && chars[fieldEnd] !== FIELD_SEPARATOR) fieldEnd += 1;
    }
    out.push({ suffix: Buffer.from(chars.slice(pos, Math.min(pos + SUFFIX_CHARS, fieldEnd)).join(''), 'utf8'), pos });
  }
  return out;
}

/** The distinct texts of 1 to GRAM_CHARS characters inside the fields of a `search_text` value. */
function searchGrams(searchText: string): string[] {
  const grams = new Set<string>();
  for (const field of searchText.split(FIELD_SEPARATOR)) {
    const chars = Array.from(field);
    for (let pos = 0; pos < chars.length; pos += 1) {
      for (let length = 1; length <= GRAM_CHARS && pos + length <= chars.length; length += 1) grams.add(chars.slice(pos, pos + length).join(''));
    }
  }
  return [...grams];
}

/** How many of the given `search_text` values contain each gram. */
export function gramCounts(searchTexts: Iterable<string>, counts = new Map<string, number>()): Map<string, number> {
  for (const text of searchTexts) for (const gram of searchGrams(text)) counts.set(gram, (counts.get(gram) ?? 0) + 1);
  return counts;
}

/** Adds payouts to a scope's gram counts, in byte order of the grams. */
export async function addGramCounts(manager: EntityManager, scopeId: number, counts: Map<string, number>): Promise<void> {
  const rows = [...counts].map(([gram, count]) => [Buffer.from(gram, 'utf8'), count] as const).sort(([a], [b]) => Buffer.compare(a, b));
  const upsert = isMysql(manager)
    ? 'ON DUPLICATE KEY UPDATE payout_count = payout_count + VALUES(payout_count)'
    : 'ON CONFLICT (scope_id, gram) DO UPDATE SET payout_count = payout_count + excluded.payout_count';
  await insertRows(manager, 'INSERT INTO payout_search_grams (scope_id, gram, payout_count)', rows.map(([gram, count]) => [scopeId, gram, count]), upsert);
}

/** Every payout of a scope that has a search text, in `seq` order, a batch at a time. */
export async function forEachPayoutTextBatch(
  manager: EntityManager, scope: { merchantId: string; livemode: unknown }, batchSize: number,
  fn: (rows: Array<{ seq: number; searchText: string }>) => Promise<void> | void,
): Promise<void> {
  for (let after = 0; ;) {
    const rows = (await manager.query(
      `SELECT seq, search_text FROM payouts WHERE merchant_id = ? AND livemode = ? AND seq > ? ORDER BY seq LIMIT ${Math.trunc(batchSize)}`,
      [scope.merchantId, scope.livemode, after],
    )) as Array<{ seq: number | string; search_text: string | null }>;
    if (!rows.length) return;
    await fn(rows.flatMap((row) => (row.search_text === null ? [] : [{ seq: Number(row.seq), searchText: String(row.search_text) }])));
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/** Inserts suffix rows (already present ones are kept). */
export async function insertSuffixes(manager: EntityManager, scopeId: number, rows: Array<{ seq: number; searchText: string }>): Promise<void> {
  const values = rows.flatMap((row) => searchSuffixes(row.searchText).map(({ suffix, pos }) => [scopeId, suffix, row.seq, pos]));
  const ignore = isMysql(manager) ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  await insertRows(manager, `${ignore} INTO payout_search_suffixes (scope_id, suffix, payout_seq, pos)`, values);
}

/** `head VALUES (...), (...) tail` in statements of 250 rows. */
async function insertRows(manager: EntityManager, head: string, rows: unknown[][], tail = ''): Promise<void> {
  for (let i = 0; i < rows.length; i += 250) {
    const chunk = rows.slice(i, i + 250);
    await manager.query(`${head} VALUES ${chunk.map((row) => `(${row.map(() => '?').join(', ')})`).join(', ')} ${tail}`, chunk.flat());
  }
}

/** Builds `payout_created_hours` from every payout row. */
export async function backfillCreatedHours(manager: EntityManager): Promise<void> {
  const hour = isMysql(manager) ? `p.created_at DIV ${CREATED_BUCKET_SECONDS}` : `p.created_at / ${CREATED_BUCKET_SECONDS}`; // integer division
  await manager.query(`
    INSERT INTO payout_created_hours (scope_id, hour, payout_count, min_seq, max_seq)
    SELECT s.id, ${hour}, COUNT(*), MIN(p.seq), MAX(p.seq)
    FROM payouts p JOIN payout_scopes s ON s.merchant_id = p.merchant_id AND s.livemode = p.livemode
    GROUP BY s.id, ${hour}`);
}
