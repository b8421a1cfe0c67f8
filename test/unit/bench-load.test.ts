// The bench's summary of a load step (bench/lib/load.ts): latency from the planned send time,
// the generator's lateness, errors and timeouts, the achieved rate. No timing is asserted here:
// these are fixed inputs.
import { epochMs, summarize, type VegetaResult } from '../../bench/lib/load';

const T0 = '2026-11-24T17:15:58.500000000Z';
const at = (offsetMs: number) => new Date(Date.parse(T0) + Math.floor(offsetMs)).toISOString().replace('Z', `${String(Math.round((offsetMs % 1) * 1e6)).padStart(6, '0')}Z`);
const result = (seq: number, sentOffsetMs: number, latencyMs: number, code = 200, extra: Partial<VegetaResult> = {}): VegetaResult => ({
  seq, code, timestamp: at(sentOffsetMs), latency: latencyMs * 1e6, error: '', ...extra,
});

describe('epochMs', () => {
  it('keeps the sub-millisecond part of a nanosecond timestamp', () => {
    expect(epochMs('2026-11-24T17:15:58.542926777Z')).toBeCloseTo(Date.parse('2026-11-24T17:15:58.542Z') + 0.926777, 6);
    expect(epochMs('2026-11-24T17:15:58Z')).toBe(Date.parse('2026-11-24T17:15:58Z'));
    expect(epochMs('2026-11-24T18:15:58.5+01:00')).toBe(Date.parse('2026-11-24T17:15:58.500Z'));
  });
});

describe('summarize', () => {
  const paced = { name: '10/s', rate: 10, durationSeconds: 1, connections: 32 };

  it('counts a paced latency from the planned send time, so a late send is not hidden', () => {
    // Planned at 0, 100, 200 ms; the third went out 30 ms late and took 5 ms.
    const s = summarize(paced, [result(2, 230, 5), result(0, 0, 4), result(1, 100, 6)], 1.2);
    expect(s.ok).toBe(3);
    expect(s.max).toBeCloseTo(35, 6);
    expect(s.p50).toBeCloseTo(6, 6);
    expect(s.sendLateness!.max).toBeCloseTo(30, 6);
    expect(s.sendLateness!.p50).toBe(0);
  });

  it('keeps non-2xx answers out of the latencies and tells timeouts from other errors', () => {
    const s = summarize(paced, [
      result(0, 0, 4), result(1, 100, 3, 503),
      result(2, 200, 30_000, 0, { error: 'Get "http://x": context deadline exceeded (Client.Timeout exceeded while awaiting headers)' }),
      result(3, 300, 1, 0, { error: 'dial tcp: connect: connection refused' }),
    ], 31);
    expect(s).toMatchObject({ ok: 1, non2xx: 1, timeouts: 1, errors: 1, statusCodes: { 200: 1, 503: 1 } });
    expect(s.p99).toBeCloseTo(4, 6);
  });

  it('reports the achieved rate and flags a paced step that could not keep it', () => {
    // 10/s planned for 1 s, but the answers took until 2.5 s: 10 answers over 2.5 s.
    const slow = Array.from({ length: 10 }, (_, i) => result(i, i * 100, 1600));
    const s = summarize(paced, slow, 2.5);
    expect(s.throughput).toBeCloseTo(10 / 2.5, 6);
    expect(s.saturated).toBe(true);
    const fast = summarize(paced, Array.from({ length: 10 }, (_, i) => result(i, i * 100, 2)), 1);
    expect(fast.throughput).toBeCloseTo(10, 6);
    expect(fast.saturated).toBe(false);
  });

  it('hands each answer its body and arrival time', () => {
    const seen: Array<[number, string, number]> = [];
    summarize({ ...paced, onAnswer: (status, body, arrivedAtMs) => seen.push([status, body, arrivedAtMs]) },
      [result(0, 0, 12.5, 201, { body: Buffer.from('{"id":"pay_1"}').toString('base64') })], 1);
    expect(seen).toEqual([[201, '{"id":"pay_1"}', Date.parse(T0) + 12.5]]);
  });

  it('measures a saturation step from each send, with no lateness', () => {
    const s = summarize({ name: 'saturation', rate: null, durationSeconds: 1, connections: 2 }, [result(0, 0, 10), result(1, 0, 12), result(2, 10, 8)], 1);
    expect(s.sendLateness).toBeUndefined();
    expect(s.max).toBeCloseTo(12, 6);
    expect(s.saturated).toBe(false);
  });
});
