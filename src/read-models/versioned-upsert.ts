// Projections are written with a version guard: an older snapshot never overwrites a newer one, so
// retried or reordered activities cannot move a row backwards. Portable across MySQL and SQLite.
import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { isDeadlock, isDuplicateKeyError } from '../db/errors';

export interface UpsertOptions {
  /** A row that is almost always new (a create's answer): one statement instead of three. */
  likelyNew?: boolean;
  /** The row is known to exist (it was read before): a guarded update that moves nothing needs no check. */
  exists?: boolean;
}

/** Writes the row unless the stored one is at this version or newer; answers whether it wrote. */
export async function upsertVersioned<T extends ObjectLiteral & { id: string; version: number }>(
  manager: EntityManager, target: EntityTarget<T>, row: Omit<T, 'seq'>, options: UpsertOptions = {},
): Promise<boolean> {
  const repo = manager.getRepository(target);
  if (options.likelyNew) {
    try {
      await repo.insert(row as never);
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // the other writer was first: the guarded update decides
    }
  }
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const updated = await repo.createQueryBuilder()
      .update()
      .set(row as never)
      .where('id = :id AND version < :version', { id: row.id, version: row.version })
      .execute();
    if (updated.affected) return true;
    if (options.exists) return false;
    const exists = await repo.createQueryBuilder('r').select('r.version', 'version').where('r.id = :id', { id: row.id }).getRawOne();
    if (exists) return false; // already at this version or newer
    try {
      await repo.insert(row as never);
      return true;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error; // a concurrent insert won: try the guarded update again
    }
  }
  return false;
}

/**
 * Two writers of one new row (the API projecting a create's answer, the workflow's projector)
 * can meet on InnoDB's gap locks; the server then rolls one back as a deadlock victim. Its write
 * is versioned, so running the whole transaction again is safe.
 */
export async function retryingDeadlocks<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= attempts || !isDeadlock(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * 5 + Math.random() * 10));
    }
  }
}
