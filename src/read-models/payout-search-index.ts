// The payout search index and the per-scope payout count, so that a list stays an index range
// scan at a million payouts per merchant (bench/REPORT.md shows the plans).
//
// Search: a literal, case-insensitive substring match over the payout id, the merchant reference
// and the recipient names (docs/api-reference.md, "Lists"). `search_text` keeps those fields
// lowercased, one per line. For every character position of every field we store
// the suffix starting there, cut to SUFFIX_CHARS characters and at the field's end, as UTF-8 bytes,
// with its position: a text occurs in a field exactly when it is a prefix of one of the field's
// suffixes, so a search is one range scan on (scope, suffix) - no wildcard, no full scan, and `%`
// or `_` are ordinary bytes. A search longer than SUFFIX_CHARS uses its first SUFFIX_CHARS
// characters for the range and the `search_text` LIKE to confirm the (few) candidates. Bytes are
// compared as bytes (VARBINARY / BLOB), so there is no collation padding or folding: lowercasing is
// the only normalization, as before.
//
// Count: `payout_scopes` keeps one row per (merchant, mode) with its payout count, written in the
// transaction that inserts the payout row, so an unfiltered list's total_count is one row read.
// Its id is the compact scope key of the suffix rows.
//
// Short searches: one or two characters can match a large share of a scope (`an`: 175,000 of a
// million payouts), where counting the distinct matches in the suffix index reads them all.
// `payout_search_grams` keeps, per scope, how many payouts contain each one- and two-character
// text within a field, written in the same transaction (the searchable fields never change), so
// such a search's total_count is one row read and its page can walk the newest payouts instead.
//
// Creation-time windows: `payout_created_hours` keeps, per scope and hour of `created_at`, how many
// payouts were created in it and the lowest and highest `seq` among them, written in the same
// transaction (created_at never changes). A window's total_count is the sum of its whole hours
// plus an index count of the (at most two) partial ones, and its page walks `seq` only inside the
// range its hours hold, instead of reading and sorting every payout of the window.
import type { DataSource, EntityManager } from 'typeorm';
import { isMysql } from '../db/dialect';
import { isDuplicateKeyError } from '../db/errors';

export const SUFFIX_CHARS = 12;
/** Searches up to this many characters are counted from `payout_search_grams`. */
export const GRAM_CHARS = 2;
const FIELD_SEPARATOR = '\n';

/** The indexed suffixes of a `search_text` value, with their character positions in it. */
export function searchSuffixes(searchText: string): Array<{ suffix: Buffer; pos: number }> {
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
export function searchGrams(searchText: string): string[] {
  const grams = new Set<string>();
  for (const field of searchText.split(FIELD_SEPARATOR)) {
    const chars = Array.from(field);
    for (let pos = 0; pos < chars.length; pos += 1) {
      for (let length = 1; length <= GRAM_CHARS && pos + length <= chars.length; length += 1) grams.add(chars.slice(pos, pos + length).join(''));
    }
  }
  return [...grams];
}

/** True when `payout_search_grams` holds the count of this (lowercased) search text. */
export function isGramSearch(text: string): boolean {
  const length = Array.from(text).length;
  return length >= 1 && length <= GRAM_CHARS;
}

export interface SuffixRange {
  from: Buffer;
  /** Exclusive upper bound: every byte string that starts with `from` sorts below it. */
  to: Buffer;
  /** False when the search is longer than the indexed suffixes: candidates need the LIKE check. */
  exact: boolean;
}

/** The suffix range of a (lowercased) search text. */
export function suffixRange(text: string): SuffixRange {
  const chars = Array.from(text);
  const from = Buffer.from(chars.slice(0, SUFFIX_CHARS).join(''), 'utf8');
  // UTF-8 never contains 0xFF, so bumping the last byte gives the first string past the prefix.
  const to = Buffer.from(from);
  to[to.length - 1] = to[to.length - 1]! + 1;
  return { from, to, exact: chars.length <= SUFFIX_CHARS };
}

/** Ids of committed scope rows never change (rows are never deleted): the read path caches them per database. */
const committedScopeIds = new WeakMap<DataSource, Map<string, number>>();

/** A scope's id in `payout_scopes`, or null when it has no payouts yet. */
export async function findScopeId(source: DataSource | EntityManager, merchantId: string, livemode: boolean, cache = true): Promise<number | null> {
  const dataSource = 'connection' in source ? source.connection : source;
  let ids = committedScopeIds.get(dataSource);
  if (!ids) committedScopeIds.set(dataSource, (ids = new Map()));
  const cacheKey = `${merchantId}:${livemode ? 1 : 0}`;
  const cached = cache ? ids.get(cacheKey) : undefined;
  if (cached !== undefined) return cached;
  const rows = (await source.query('SELECT id FROM payout_scopes WHERE merchant_id = ? AND livemode = ?', [merchantId, livemode])) as Array<{ id: number | string }>;
  if (!rows.length) return null;
  const id = Number(rows[0]!.id);
  // Inside a write transaction the row may still roll back: only the read path caches.
  if (cache) ids.set(cacheKey, id);
  return id;
}

export async function scopePayoutCount(source: DataSource | EntityManager, merchantId: string, livemode: boolean): Promise<number> {
  const rows = (await source.query('SELECT payout_count FROM payout_scopes WHERE merchant_id = ? AND livemode = ?', [merchantId, livemode])) as Array<{ payout_count: number | string }>;
  return rows.length ? Number(rows[0]!.payout_count) : 0;
}

/** Counts one more payout in its scope (creating the scope row on its first payout); returns the scope id. */
async function countPayout(manager: EntityManager, merchantId: string, livemode: boolean): Promise<number> {
  const runner = manager.queryRunner;
  if (!runner) throw new Error('payouts are indexed inside the projection transaction');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const updated = await runner.query('UPDATE payout_scopes SET payout_count = payout_count + 1 WHERE merchant_id = ? AND livemode = ?', [merchantId, livemode], true);
    if (updated.affected) return (await findScopeId(manager, merchantId, livemode, false))!;
    try {
      await runner.query('INSERT INTO payout_scopes (merchant_id, livemode, payout_count) VALUES (?, ?, 1)', [merchantId, livemode]);
      return (await findScopeId(manager, merchantId, livemode, false))!;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // a concurrent first payout won: count again
    }
  }
  throw new Error(`could not count a payout for ${merchantId}`);
}

/** The filterable attributes whose counts `payout_counts` keeps per scope. */
export interface PayoutGroup {
  status: string;
  currency: string;
  brand: string;
}

async function addToGroup(manager: EntityManager, scopeId: number, group: PayoutGroup, delta: 1 | -1): Promise<void> {
  const runner = manager.queryRunner!;
  const key = [scopeId, group.status, group.currency, group.brand];
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const updated = await runner.query(
      'UPDATE payout_counts SET payout_count = payout_count + ? WHERE scope_id = ? AND status = ? AND currency = ? AND destination_brand = ?', [delta, ...key], true,
    );
    if (updated.affected || delta < 0) return;
    try {
      await runner.query('INSERT INTO payout_counts (scope_id, status, currency, destination_brand, payout_count) VALUES (?, ?, ?, ?, 1)', key);
      return;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // a concurrent first payout of this group won: add again
    }
  }
}

function sameGroup(a: PayoutGroup, b: PayoutGroup): boolean {
  return a.status === b.status && a.currency === b.currency && a.brand === b.brand;
}

/** Indexes a newly inserted payout row: its search suffixes and its counts. Same transaction. */
export async function indexNewPayout(manager: EntityManager, payout: { seq: number; merchantId: string; livemode: boolean; createdAt: number; searchText: string; group: PayoutGroup }): Promise<void> {
  const scopeId = await countPayout(manager, payout.merchantId, payout.livemode);
  await addToGroup(manager, scopeId, payout.group, 1);
  await insertSuffixes(manager, scopeId, [{ seq: payout.seq, searchText: payout.searchText }]);
  await addGramCounts(manager, scopeId, gramCounts([payout.searchText]));
  await addToCreatedHour(manager, scopeId, payout.createdAt, payout.seq);
}

/** The width of a `payout_created_hours` bucket. */
export const CREATED_BUCKET_SECONDS = 3600;

async function addToCreatedHour(manager: EntityManager, scopeId: number, createdAt: number, seq: number): Promise<void> {
  const upsert = isMysql(manager)
    ? 'ON DUPLICATE KEY UPDATE payout_count = payout_count + 1, min_seq = LEAST(min_seq, VALUES(min_seq)), max_seq = GREATEST(max_seq, VALUES(max_seq))'
    : 'ON CONFLICT (scope_id, hour) DO UPDATE SET payout_count = payout_count + 1, min_seq = MIN(min_seq, excluded.min_seq), max_seq = MAX(max_seq, excluded.max_seq)';
  await manager.query(`INSERT INTO payout_created_hours (scope_id, hour, payout_count, min_seq, max_seq) VALUES (?, ?, 1, ?, ?) ${upsert}`,
    [scopeId, Math.floor(createdAt / CREATED_BUCKET_SECONDS), seq, seq]);
}

/** A creation-time window [gte, lt) of a scope, either bound open. */
export interface CreatedWindow {
  gte?: number;
  lt?: number;
}

/**
 * What `payout_created_hours` knows of a window: the count of its whole hours, the parts of the
 * window outside them (to count through the index), and a `seq` range that holds every payout
 * created in the window (null: none).
 */
export async function createdWindowHours(source: DataSource | EntityManager, merchantId: string, livemode: boolean, window: CreatedWindow): Promise<{
  wholeHoursCount: number;
  partialRanges: CreatedWindow[];
  seqRange: { from: number; to: number } | null;
}> {
  const empty = { wholeHoursCount: 0, partialRanges: [], seqRange: null };
  const scopeId = await findScopeId(source, merchantId, livemode);
  if (scopeId === null || (window.gte !== undefined && window.lt !== undefined && window.gte >= window.lt)) return empty;
  const hour = CREATED_BUCKET_SECONDS;
  // Hours touching the window, and the whole ones among them.
  const firstHour = window.gte === undefined ? null : Math.floor(window.gte / hour);
  const lastHour = window.lt === undefined ? null : Math.floor((window.lt - 1) / hour);
  const firstWhole = window.gte === undefined ? null : Math.ceil(window.gte / hour);
  const lastWhole = window.lt === undefined ? null : Math.floor(window.lt / hour) - 1;
  const conditions = ['scope_id = ?'];
  const params: unknown[] = [scopeId];
  if (firstHour !== null) { conditions.push('hour >= ?'); params.push(firstHour); }
  if (lastHour !== null) { conditions.push('hour <= ?'); params.push(lastHour); }
  const whole = [firstWhole === null ? null : `hour >= ${firstWhole}`, lastWhole === null ? null : `hour <= ${lastWhole}`].filter((c) => c !== null).join(' AND ') || '1 = 1';
  const rows = (await source.query(
    `SELECT MIN(min_seq) AS from_seq, MAX(max_seq) AS to_seq, SUM(CASE WHEN ${whole} THEN payout_count ELSE 0 END) AS whole_count
     FROM payout_created_hours WHERE ${conditions.join(' AND ')}`, params,
  )) as Array<{ from_seq: number | string | null; to_seq: number | string | null; whole_count: number | string | null }>;
  const found = rows[0];
  if (!found || found.from_seq === null || found.to_seq === null) return empty;
  const partialRanges: CreatedWindow[] = [];
  const wholeFrom = firstWhole === null ? null : firstWhole * hour;
  const wholeTo = lastWhole === null ? null : (lastWhole + 1) * hour;
  if (wholeFrom !== null && wholeTo !== null && wholeFrom >= wholeTo) {
    partialRanges.push(window); // no whole hour inside: the window is within two hours, count it all
  } else {
    if (wholeFrom !== null && window.gte! < wholeFrom) partialRanges.push({ gte: window.gte, lt: wholeFrom });
    if (wholeTo !== null && wholeTo < window.lt!) partialRanges.push({ gte: wholeTo, lt: window.lt });
  }
  const wholeHoursCount = wholeFrom !== null && wholeTo !== null && wholeFrom >= wholeTo ? 0 : Number(found.whole_count ?? 0);
  return { wholeHoursCount, partialRanges, seqRange: { from: Number(found.from_seq), to: Number(found.to_seq) } };
}

/** How many of the given `search_text` values contain each gram: what addGramCounts adds. */
export function gramCounts(searchTexts: Iterable<string>, counts = new Map<string, number>()): Map<string, number> {
  for (const text of searchTexts) for (const gram of searchGrams(text)) counts.set(gram, (counts.get(gram) ?? 0) + 1);
  return counts;
}

/** Adds payouts to a scope's gram counts: used by the projection and the bench seed. */
export async function addGramCounts(manager: EntityManager, scopeId: number, counts: Map<string, number>): Promise<void> {
  // Byte order, the primary key's order: concurrent writers of one scope lock the rows in one order
  // (they already queue on the scope's count row, this keeps it true without it).
  const rows = [...counts].map(([gram, count]) => [Buffer.from(gram, 'utf8'), count] as const).sort(([a], [b]) => Buffer.compare(a, b));
  const upsert = isMysql(manager)
    ? 'ON DUPLICATE KEY UPDATE payout_count = payout_count + VALUES(payout_count)'
    : 'ON CONFLICT (scope_id, gram) DO UPDATE SET payout_count = payout_count + excluded.payout_count';
  await insertRows(manager, 'INSERT INTO payout_search_grams (scope_id, gram, payout_count)', rows.map(([gram, count]) => [scopeId, gram, count]), upsert);
}

/** How many payouts of a scope contain a search text of 1 to GRAM_CHARS characters (isGramSearch). */
export async function gramPayoutCount(source: DataSource | EntityManager, scopeId: number, text: string): Promise<number> {
  const rows = (await source.query('SELECT payout_count FROM payout_search_grams WHERE scope_id = ? AND gram = ?', [scopeId, Buffer.from(text, 'utf8')])) as Array<{ payout_count: number | string }>;
  return rows.length ? Number(rows[0]!.payout_count) : 0;
}

/** Moves a payout between count groups (a status change). Same transaction as the row update. */
export async function regroupPayout(manager: EntityManager, merchantId: string, livemode: boolean, from: PayoutGroup, to: PayoutGroup): Promise<void> {
  if (sameGroup(from, to)) return;
  const scopeId = await findScopeId(manager, merchantId, livemode, false);
  if (scopeId === null) return; // a row written before the counts existed and never backfilled
  // Always lock counter rows in one order, so two transactions can never wait on each other.
  const moves: Array<[PayoutGroup, 1 | -1]> = [[from, -1], [to, 1]];
  moves.sort(([a], [b]) => `${a.status}|${a.currency}|${a.brand}`.localeCompare(`${b.status}|${b.currency}|${b.brand}`));
  for (const [group, delta] of moves) await addToGroup(manager, scopeId, group, delta);
}

/** Payouts of a scope in the given statuses, currencies and brands (empty = any), from the counts. */
export async function groupedPayoutCount(source: DataSource | EntityManager, merchantId: string, livemode: boolean, filter: { statuses: string[]; currencies: string[]; brands: string[] }): Promise<number> {
  const scopeId = await findScopeId(source, merchantId, livemode);
  if (scopeId === null) return 0;
  const conditions = ['scope_id = ?'];
  const params: unknown[] = [scopeId];
  for (const [column, values] of [['status', filter.statuses], ['currency', filter.currencies], ['destination_brand', filter.brands]] as const) {
    if (!values.length) continue;
    conditions.push(`${column} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  }
  const rows = (await source.query(`SELECT SUM(payout_count) AS total FROM payout_counts WHERE ${conditions.join(' AND ')}`, params)) as Array<{ total: number | string | null }>;
  return Number(rows[0]?.total ?? 0);
}

/** Inserts suffix rows (already present ones are kept): used by the projection. */
export async function insertSuffixes(manager: EntityManager, scopeId: number, rows: Array<{ seq: number; searchText: string }>): Promise<void> {
  const values = rows.flatMap((row) => searchSuffixes(row.searchText).map(({ suffix, pos }) => [scopeId, suffix, row.seq, pos]));
  const ignore = isMysql(manager) ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  await insertRows(manager, `${ignore} INTO payout_search_suffixes (scope_id, suffix, payout_seq, pos)`, values);
}

/** `head VALUES (...), (...) tail` in statements of 250 rows: every engine's placeholder limit stays far away. */
async function insertRows(manager: EntityManager, head: string, rows: unknown[][], tail = ''): Promise<void> {
  for (let i = 0; i < rows.length; i += 250) {
    const chunk = rows.slice(i, i + 250);
    await manager.query(`${head} VALUES ${chunk.map((row) => `(${row.map(() => '?').join(', ')})`).join(', ')} ${tail}`, chunk.flat());
  }
}
