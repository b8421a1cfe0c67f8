import { databaseUnreachable, isDeadlock, isDuplicateKeyError } from '../../src/db/errors';

// TypeORM wraps driver errors as QueryFailedError with the original under `driverError`.
const wrapped = (code: string) => ({ name: 'QueryFailedError', driverError: { code } });

it('reads the driver code, wrapped by TypeORM or not', () => {
  expect(isDuplicateKeyError({ code: 'ER_DUP_ENTRY' })).toBe(true);
  expect(isDuplicateKeyError(wrapped('SQLITE_CONSTRAINT_UNIQUE'))).toBe(true);
  expect(isDuplicateKeyError(wrapped('SQLITE_CONSTRAINT_PRIMARYKEY'))).toBe(true);
  expect(isDeadlock(wrapped('ER_LOCK_DEADLOCK'))).toBe(true);
  expect(isDeadlock({ code: 'SQLITE_BUSY' })).toBe(true);
  expect(databaseUnreachable(wrapped('ECONNREFUSED'))).toBe('ECONNREFUSED');
  expect(databaseUnreachable({ code: 'PROTOCOL_CONNECTION_LOST' })).toBe('PROTOCOL_CONNECTION_LOST');
});

it('answers no for every other error', () => {
  for (const error of [null, undefined, new Error('x'), { code: 42 }, wrapped('ER_PARSE_ERROR')]) {
    expect(isDuplicateKeyError(error)).toBe(false);
    expect(isDeadlock(error)).toBe(false);
    expect(databaseUnreachable(error)).toBeNull();
  }
  expect(isDeadlock(wrapped('ER_DUP_ENTRY'))).toBe(false);
  expect(isDuplicateKeyError(wrapped('ER_LOCK_DEADLOCK'))).toBe(false);
});
