// POST /v1/refunds against a real MariaDB, Temporal and the sandbox acquirer.
import type { RunningApi } from '../../src/api/server';
import { call, createMerchant, directPaymentBody, eventually, startTestApi, type TestMerchant } from '../helpers/api';

let api: RunningApi;
let merchant: TestMerchant;

beforeAll(async () => {
  api = await startTestApi();
  merchant = await createMerchant(api);
});
afterAll(async () => { await api.close(); });

async function succeededPayment(amount = 1000, card = '4242424242424242') {
  const created = await call(api, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody({ amount }, { number: card }) });
  expect(created.status).toBe(201);
  return eventually(() => getPayment(created.json.id), (p) => p.status === 'SUCCEEDED');
}

async function getPayment(id: string, key = merchant.testKey) {
  return (await call(api, 'GET', `/v1/payments/${id}`, { key })).json;
}

it('smoke', async () => {
  const payment = await succeededPayment();
  const res = await call(api, 'POST', '/v1/refunds', { key: merchant.testKey, body: { payment_id: payment.id, amount: 1000, reason: 'requested_by_customer' } });
  console.log(res.status, res.text);
  const after = await eventually(() => getPayment(payment.id), (p) => p.refunds[0]?.status === 'SUCCEEDED');
  console.log(JSON.stringify(after));
});
