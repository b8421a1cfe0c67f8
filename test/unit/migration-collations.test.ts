// The migrations run on MariaDB (what CI tests) and on MySQL 8 alike: no migration names a
// collation only one engine has; it asks src/db/migrations/helpers/dialect.ts. A recording query
// runner that answers like each engine shows what the two collation-changing migrations send.
import fs from 'node:fs';
import path from 'node:path';
import type { QueryRunner } from 'typeorm';
import { PROJECT_ROOT } from '../../src/config';
import { binaryNoPadCollation } from '../../src/db/migrations/helpers/dialect';
import { ByteExactIdentifiers1765300000000 } from '../../src/db/migrations/1765300000000-byte-exact-identifiers';
import { LongTexts1765700000000 } from '../../src/db/migrations/1765700000000-long-texts';

const MIGRATIONS = path.join(PROJECT_ROOT, 'src', 'db', 'migrations');
/** Collations MariaDB 10.2+ and MySQL 8.0.17+ both have. */
const PORTABLE = new Set(['utf8mb4_unicode_ci', 'utf8mb4_general_ci', 'utf8mb4_bin']);
const COLLATION_LITERAL = /\b(?:utf8mb4|utf8mb3|utf8|latin1|binary)_[a-z0-9_]+\b/g;

/** What each engine's information_schema.COLLATIONS lists of the names we ask about. */
const ENGINES = {
  mariadb: ['utf8mb4_unicode_ci', 'utf8mb4_general_ci', 'utf8mb4_bin', 'utf8mb4_nopad_bin'],
  mysql8: ['utf8mb4_unicode_ci', 'utf8mb4_general_ci', 'utf8mb4_bin', 'utf8mb4_0900_bin', 'utf8mb4_0900_ai_ci'],
};

function recordingRunner(collations: string[]): { runner: QueryRunner; statements: string[] } {
  const statements: string[] = [];
  const runner = {
    connection: { options: { type: 'mysql' } },
    query: async (sql: string) => {
      statements.push(sql);
      if (/information_schema\.COLLATIONS/i.test(sql)) {
        const asked = [...sql.matchAll(/'([a-z0-9_]+)'/g)].map((m) => m[1]);
        return collations.filter((name) => asked.includes(name)).map((name) => ({ name }));
      }
      return [];
    },
  } as unknown as QueryRunner;
  return { runner, statements };
}

function migrationFiles(): string[] {
  return fs.readdirSync(MIGRATIONS).filter((file) => /^\d+-.+\.ts$/.test(file));
}

describe('migrations on MariaDB and MySQL 8', () => {
  it('name no engine-specific collation outside the dialect helpers', () => {
    const offenders: string[] = [];
    for (const file of migrationFiles()) {
      const source = fs.readFileSync(path.join(MIGRATIONS, file), 'utf8');
      for (const [literal] of source.matchAll(COLLATION_LITERAL)) if (!PORTABLE.has(literal)) offenders.push(`${file}: ${literal}`);
    }
    expect(offenders).toEqual([]);
  });

  it('the check itself catches an engine-specific literal', () => {
    const bad = "ALTER TABLE t MODIFY c TEXT COLLATE utf8mb4_nopad_bin; -- or utf8mb4_0900_bin";
    expect([...bad.matchAll(COLLATION_LITERAL)].map((m) => m[0]).filter((l) => !PORTABLE.has(l))).toEqual(['utf8mb4_nopad_bin', 'utf8mb4_0900_bin']);
  });

  it.each(Object.entries(ENGINES))('the dialect helper picks a binary NO PAD collation %s has', async (_engine, collations) => {
    const { runner } = recordingRunner(collations);
    const chosen = await binaryNoPadCollation(runner);
    expect(collations).toContain(chosen);
    expect(chosen).toMatch(/nopad_bin|0900_bin/);
  });

  it('refuses a server without a binary NO PAD collation rather than padding keys', async () => {
    await expect(binaryNoPadCollation(recordingRunner(['utf8mb4_bin']).runner)).rejects.toThrow(/no binary NO PAD collation/);
  });

  it.each(Object.entries(ENGINES))('the collation-changing migrations send only collations %s has, both ways', async (_engine, collations) => {
    for (const migration of [new ByteExactIdentifiers1765300000000(), new LongTexts1765700000000()]) {
      for (const direction of ['up', 'down'] as const) {
        const { runner, statements } = recordingRunner(collations);
        await migration[direction](runner);
        const used = statements.filter((sql) => !/information_schema/i.test(sql)).flatMap((sql) => [...sql.matchAll(/COLLATE ([a-z0-9_]+)/g)].map((m) => m[1]!));
        expect(used.length).toBeGreaterThan(0);
        for (const name of used) expect(collations).toContain(name);
      }
    }
  });
});
