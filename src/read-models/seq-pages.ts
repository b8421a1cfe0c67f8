// Keyset pages over `seq`, the insertion sequence of a list's rows: newest first, and stable while
// rows are created, because a new row always takes a higher `seq` than every row a cursor has
// passed. Payment and Payout lists cut their pages here.
import { In, type FindOptionsWhere, type ObjectLiteral, type Repository, type SelectQueryBuilder } from 'typeorm';

export interface SeqPage {
  /** `seq < :cursor` forwards, `seq > :cursor` backwards, or none on the first page. */
  cursor: { condition: string; seq: number } | null;
  direction: 'ASC' | 'DESC';
  limit: number;
}

export interface SeqPageQuery {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

export type CursorNotFound = { cursorNotFound: 'starting_after' | 'ending_before' };

/**
 * The page a list query asks for, its cursor found among the scope's rows (an id of another scope,
 * or of nothing, is no cursor). `repo` holds rows with `seq`, `id`, `merchant_id` and `livemode`.
 */
export async function seqPageOf(repo: Repository<ObjectLiteral>, scope: { merchantId: string; livemode: boolean }, query: SeqPageQuery): Promise<SeqPage | CursorNotFound> {
  const backward = query.endingBefore !== undefined;
  const cursorId = query.startingAfter ?? query.endingBefore;
  let cursor: SeqPage['cursor'] = null;
  if (cursorId !== undefined) {
    const row = await repo.createQueryBuilder('c').select('c.seq', 'seq')
      .where('c.id = :id AND c.merchant_id = :merchantId AND c.livemode = :livemode', { id: cursorId, merchantId: scope.merchantId, livemode: scope.livemode })
      .getRawOne<{ seq: number | string }>();
    if (!row) return { cursorNotFound: backward ? 'ending_before' : 'starting_after' };
    cursor = { condition: backward ? 'seq > :cursor' : 'seq < :cursor', seq: Number(row.seq) };
  }
  return { cursor, direction: backward ? 'ASC' : 'DESC', limit: query.limit };
}

/** The query cut to the page by its column `<alias>.seq`: past the cursor, in order, one row more than the limit for has_more. */
export function cutPage<Q extends SelectQueryBuilder<ObjectLiteral>>(query: Q, alias: string, page: SeqPage): Q {
  if (page.cursor) query.andWhere(`${alias}.${page.cursor.condition}`, { cursor: page.cursor.seq });
  return query.orderBy(`${alias}.seq`, page.direction).limit(page.limit + 1);
}

/** The rows a cut page read, newest first, and whether more lie beyond them. */
export function pageRows<T>(rows: T[], page: SeqPage): { rows: T[]; hasMore: boolean } {
  const kept = rows.slice(0, page.limit);
  if (page.direction === 'ASC') kept.reverse();
  return { rows: kept, hasMore: rows.length > page.limit };
}

/** The rows of these `seq`s by primary key, in the same order (one removed meanwhile is left out). */
export async function rowsInSeqOrder<T extends { seq: number }>(repo: Repository<T>, seqs: number[]): Promise<T[]> {
  if (!seqs.length) return [];
  const bySeq = new Map((await repo.find({ where: { seq: In(seqs) } as FindOptionsWhere<T> })).map((row) => [Number(row.seq), row]));
  return seqs.map((seq) => bySeq.get(seq)).filter((row): row is T => row !== undefined);
}
