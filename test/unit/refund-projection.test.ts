// A Payment's projection rewrites only the refunds whose state moved (src/read-models/payments.ts).
import { refundStateChanged, type RefundState } from '../../src/read-models/payments';

const succeeded: RefundState = { status: 'SUCCEEDED', failure_code: null, failure_message: null, updated_at: 1700000100, completed_at: 1700000100 };

it('a refund with no stored row is written', () => {
  expect(refundStateChanged(undefined, succeeded)).toBe(true);
});

it('a stored row with the same state is left alone, whether the driver gave numbers or strings', () => {
  expect(refundStateChanged({ ...succeeded }, succeeded)).toBe(false);
  const fromDriver = { ...succeeded, updated_at: '1700000100', completed_at: '1700000100' } as unknown as RefundState;
  expect(refundStateChanged(fromDriver, succeeded)).toBe(false);
});

it.each<[string, Partial<RefundState>]>([
  ['status', { status: 'PROCESSING', completed_at: null }],
  ['failure code', { failure_code: 'processor_error' }],
  ['failure message', { failure_message: 'The processor failed.' }],
  ['updated_at', { updated_at: 1700000099 }],
  ['completed_at only', { completed_at: null }],
])('a stored row that differs in %s is written', (_field, stored) => {
  expect(refundStateChanged({ ...succeeded, ...stored }, succeeded)).toBe(true);
});
