import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type RefundLedgerEntry,
  type RefundStatus,
  amountRefundable,
  amountRefunded,
  checkRefund,
  holdsAmount,
  isTerminalRefundStatus,
  refundType,
} from '../../src/domain/refunds';
import { refundProgress } from '../../workflows/refund/progress';

let nextId = 0;
const entry = (amount: number, status: RefundStatus): RefundLedgerEntry => ({ id: `ref_${nextId++}`, amount, status });

describe('amountRefunded', () => {
  it('sums only SUCCEEDED refunds', () => {
    expect(amountRefunded(1000, [])).toBe(0);
    expect(
      amountRefunded(1000, [entry(100, 'SUCCEEDED'), entry(200, 'PENDING'), entry(300, 'PROCESSING'), entry(50, 'FAILED'), entry(25, 'SUCCEEDED')]),
    ).toBe(125);
  });
});

describe('amountRefundable', () => {
  it('is the whole amount for a SUCCEEDED Payment without refunds', () => {
    expect(amountRefundable('SUCCEEDED', 1000, [])).toBe(1000);
  });

  it('subtracts succeeded and in-progress refunds but not failed ones', () => {
    const entries = [entry(100, 'SUCCEEDED'), entry(200, 'PENDING'), entry(300, 'PROCESSING'), entry(400, 'FAILED')];
    expect(amountRefundable('SUCCEEDED', 1000, entries)).toBe(400);
  });

  it('is 0 for any Payment that is not SUCCEEDED', () => {
    for (const status of ['PENDING', 'REQUIRES_ACTION', 'PROCESSING', 'FAILED', 'EXPIRED', 'succeeded', '']) {
      expect(amountRefundable(status, 1000, [])).toBe(0);
    }
  });

  it('never goes below 0', () => {
    expect(amountRefundable('SUCCEEDED', 1000, [entry(800, 'SUCCEEDED'), entry(800, 'PENDING')])).toBe(0);
  });
});

describe('refundType', () => {
  it('the full amount with nothing succeeded or in progress is FULL', () => {
    expect(refundType(1000, 1000, [])).toBe('FULL');
  });

  it('the remainder after a succeeded partial refund is PARTIAL', () => {
    expect(refundType(1000, 600, [entry(400, 'SUCCEEDED')])).toBe('PARTIAL');
  });

  it('a failed partial refund does not prevent a later FULL', () => {
    expect(refundType(1000, 1000, [entry(400, 'FAILED')])).toBe('FULL');
    expect(refundType(1000, 1000, [entry(1000, 'FAILED'), entry(1, 'FAILED')])).toBe('FULL');
  });

  it('an in-progress refund makes any new refund PARTIAL', () => {
    expect(refundType(1000, 1000, [entry(1, 'PENDING')])).toBe('PARTIAL');
    expect(refundType(1000, 1000, [entry(1, 'PROCESSING')])).toBe('PARTIAL');
  });

  it('less than the full amount is PARTIAL', () => {
    expect(refundType(1000, 999, [])).toBe('PARTIAL');
    expect(refundType(1000, 1, [])).toBe('PARTIAL');
  });
});

describe('checkRefund', () => {
  it('refuses a Payment that is not SUCCEEDED, before looking at the amount', () => {
    expect(checkRefund('PROCESSING', 1000, 5000, [])).toEqual({ ok: false, code: 'payment_not_refundable' });
    expect(checkRefund('FAILED', 1000, 100, [])).toEqual({ ok: false, code: 'payment_not_refundable' });
  });

  it('accepts up to amount_refundable and refuses one minor unit more', () => {
    const entries = [entry(300, 'SUCCEEDED'), entry(200, 'PROCESSING')];
    expect(checkRefund('SUCCEEDED', 1000, 500, entries)).toEqual({ ok: true, refundType: 'PARTIAL' });
    expect(checkRefund('SUCCEEDED', 1000, 501, entries)).toEqual({ ok: false, code: 'amount_exceeds_refundable' });
  });

  it('nothing left gives amount_exceeds_refundable for any amount', () => {
    const entries = [entry(1000, 'SUCCEEDED')];
    expect(checkRefund('SUCCEEDED', 1000, 1, entries)).toEqual({ ok: false, code: 'amount_exceeds_refundable' });
  });

  it('returns FULL for the whole amount of an untouched Payment', () => {
    expect(checkRefund('SUCCEEDED', 1000, 1000, [])).toEqual({ ok: true, refundType: 'FULL' });
    expect(checkRefund('SUCCEEDED', 1000, 1000, [entry(1000, 'FAILED')])).toEqual({ ok: true, refundType: 'FULL' });
  });

  it('refuses non-positive or fractional amounts', () => {
    for (const requested of [0, -1, 0.5, Number.NaN]) {
      expect(checkRefund('SUCCEEDED', 1000, requested, [])).toEqual({ ok: false, code: 'amount_exceeds_refundable' });
    }
  });

  it('serialised concurrent requests cannot overdraw the Payment', () => {
    const entries: RefundLedgerEntry[] = [];
    for (const requested of [600, 600]) {
      const result = checkRefund('SUCCEEDED', 1000, requested, entries);
      if (result.ok) entries.push(entry(requested, 'PENDING'));
    }
    expect(entries).toHaveLength(1);
    expect(amountRefundable('SUCCEEDED', 1000, entries)).toBe(400);
  });
});

type Op =
  | { kind: 'request'; amount: number }
  | { kind: 'transition'; index: number; to: RefundStatus };

// Refund transitions: PENDING -> PROCESSING | SUCCEEDED | FAILED, PROCESSING -> SUCCEEDED | FAILED.
const NEXT: Record<RefundStatus, RefundStatus[]> = {
  PENDING: ['PROCESSING', 'SUCCEEDED', 'FAILED'],
  PROCESSING: ['SUCCEEDED', 'FAILED'],
  SUCCEEDED: [],
  FAILED: [],
};

describe('refund ledger (property)', () => {
  it('never lets refundable go negative or active refunds exceed the amount', () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('request' as const), amount: fc.integer({ min: -5, max: 1200 }) }),
      fc.record({
        kind: fc.constant('transition' as const),
        index: fc.nat(),
        to: fc.constantFrom<RefundStatus>('PROCESSING', 'SUCCEEDED', 'FAILED'),
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.array(op, { maxLength: 60 }), (paymentAmount, ops) => {
        const entries: RefundLedgerEntry[] = [];
        for (const o of ops) {
          if (o.kind === 'request') {
            const before = amountRefundable('SUCCEEDED', paymentAmount, entries);
            const wasUntouched = !entries.some(holdsAmount);
            const result = checkRefund('SUCCEEDED', paymentAmount, o.amount, entries);
            if (result.ok) {
              expect(o.amount).toBeGreaterThanOrEqual(1);
              expect(o.amount).toBeLessThanOrEqual(before);
              expect(result.refundType).toBe(wasUntouched && o.amount === paymentAmount ? 'FULL' : 'PARTIAL');
              entries.push(entry(o.amount, 'PENDING'));
            } else {
              expect(result.code).toBe('amount_exceeds_refundable');
              expect(before === 0 || o.amount > before || o.amount < 1).toBe(true);
            }
          } else if (entries.length > 0) {
            const target = entries[o.index % entries.length]!;
            if (NEXT[target.status].includes(o.to)) target.status = o.to;
          }

          const refundable = amountRefundable('SUCCEEDED', paymentAmount, entries);
          const active = entries.filter(holdsAmount).reduce((s, e) => s + e.amount, 0);
          expect(refundable).toBeGreaterThanOrEqual(0);
          expect(active).toBeLessThanOrEqual(paymentAmount);
          expect(refundable).toBe(paymentAmount - active);
          expect(amountRefunded(paymentAmount, entries)).toBeLessThanOrEqual(active);
          expect(amountRefunded(paymentAmount, entries) + refundable).toBeLessThanOrEqual(paymentAmount);
        }
      }),
    );
  });
});

describe('the two sets of refunds, one name each', () => {
  const statuses: RefundStatus[] = ['PENDING', 'PROCESSING', 'SUCCEEDED', 'FAILED'];

  it('in flight until its outcome is known (the Payment waits for those before it ends)', () => {
    expect(statuses.filter((s) => !isTerminalRefundStatus(s))).toEqual(['PENDING', 'PROCESSING']);
  });

  it('holding its amount of the Payment: all but the FAILED', () => {
    expect(statuses.filter((status) => holdsAmount({ status }))).toEqual(['PENDING', 'PROCESSING', 'SUCCEEDED']);
  });
});

describe('what a provider answer makes of a refund (the one mapping of the Payment and the RefundWorkflow)', () => {
  it.each<[string, Parameters<typeof refundProgress>[1], RefundStatus, string | null]>([
    ['processing', { kind: 'processing', providerId: 're_1', settleAt: 1 }, 'PROCESSING', null],
    ['no answer: it may be with the provider', { kind: 'unanswered', cause: 'unavailable', mayHaveActed: true, retryAfterSeconds: null }, 'PROCESSING', null],
    ['not found on a look-up', { kind: 'not_found' }, 'PROCESSING', null],
    ['succeeded', { kind: 'succeeded', providerId: 're_1' }, 'SUCCEEDED', null],
    ['failed after it was taken', { kind: 'failed', providerId: 're_1', failureCode: 'processor_error' }, 'FAILED', 'processor_error'],
    ['rejected at submission', { kind: 'rejected', failureCode: 'not_permitted' }, 'FAILED', 'not_permitted'],
  ])('%s', (_label, answer, status, failureCode) => {
    expect(refundProgress('ref_1', answer)).toEqual({ refundId: 'ref_1', status, failureCode });
  });
});
