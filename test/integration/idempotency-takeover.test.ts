// A key whose API process died is free again within 10 s (CONTRACT 16), with the default lease:
// while the request runs a same-key request is `409 idempotency_key_in_use` with `Retry-After`
// (renewal past the lease: idempotency-lease.test.ts); once its process is killed, a same-key
// retry that follows Retry-After takes the request over within 10 s and gets the one Payment.
import { randomUUID } from 'node:crypto';
import { call, type CallResult, directPaymentBody, eventually, useTestApi } from '../helpers/api';
import { boundPaymentId } from '../helpers/payments';
import { clearSandboxFaults, sandboxRecords, setSandboxFaults } from '../helpers/sandbox';
import { killHard, startApiProcess } from '../helpers/temporal';

const t = useTestApi({ merchant: { name: 'Takeover Shop' } });
afterAll(async () => { await clearSandboxFaults(); });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('409 in use with Retry-After while the request lives; taken over within 10 s once its process is killed', async () => {
  expect(t.api.deps.config.idempotencyLeaseMs).toBeLessThanOrEqual(10_000);
  // The acquirer answers after 6 s: the process is killed while the request waits for it.
  await setSandboxFaults({ latency_ms: 6_000, path_prefix: '/v1/authorizations', method: 'POST' });
  const doomed = await startApiProcess(`takeover-api-${Date.now()}`);
  const key = randomUUID();
  const body = directPaymentBody({ description: 'takeover' });
  const lost = fetch(`${doomed.url}/v1/payments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${t.merchant.testKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify(body),
  }).then((res) => res.status, () => 'connection lost');
  const claimedAt = Date.now();
  const paymentId = await eventually(() => boundPaymentId(t.api, key), (id) => id !== null);

  // The live request holds the key: every same-key request is told to wait, and for how long.
  const inUse: CallResult[] = [];
  while (Date.now() - claimedAt < 3_500) {
    inUse.push(await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body, idempotencyKey: key }));
    await sleep(500);
  }
  expect(inUse.map((r) => r.status)).toEqual(inUse.map(() => 409));
  expect(inUse.map((r) => r.json.error.code)).toEqual(inUse.map(() => 'idempotency_key_in_use'));
  expect(inUse.map((r) => r.headers.get('retry-after'))).toEqual(inUse.map(() => '1'));

  await killHard(doomed.process);
  const killedAt = Date.now();
  expect(await lost).toBe('connection lost');

  // A client retrying as told (Retry-After: 1) is let in within 10 s of the crash.
  let takenOverAfterMs: number | null = null;
  let answer: CallResult | null = null;
  while (Date.now() - killedAt < 20_000) {
    const sentAt = Date.now();
    const res = await call(t.api, 'POST', '/v1/payments', { key: t.merchant.testKey, body, idempotencyKey: key });
    if (res.status !== 409) {
      takenOverAfterMs = sentAt - killedAt;
      answer = res;
      break;
    }
    expect(res.headers.get('retry-after')).toBe('1');
    await sleep(1000 * Number(res.headers.get('retry-after')));
  }
  await clearSandboxFaults();
  expect(takenOverAfterMs).not.toBeNull();
  expect(takenOverAfterMs!).toBeLessThanOrEqual(10_000);
  expect(answer!.status).toBe(201);
  expect(answer!.json.id).toBe(paymentId);
  expect((await sandboxRecords(paymentId!)).authorizations).toHaveLength(1);
}, 120_000);
