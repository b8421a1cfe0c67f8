// Metrics exposition: the API's /metrics and the worker's /metrics in Prometheus text format.
import type { RunningApi } from '../../src/api/server';
import { call, createMerchant, directPaymentBody, eventually, startTestApi } from '../helpers/api';
import { TEST_ENV } from '../helpers/test-env';

let api: RunningApi;
beforeAll(async () => { api = await startTestApi(); });
afterAll(async () => { await api.close(); });

it('the API exposes request counts and latency histograms by route and status', async () => {
  const merchant = await createMerchant(api);
  await call(api, 'GET', '/v1/payments', { key: merchant.testKey });
  await call(api, 'GET', '/v1/payments/pay_AAAAAAAAAAAAAAAAAAAAAAAA', { key: merchant.testKey });
  const res = await call(api, 'GET', '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(res.text).toMatch(/http_requests_total\{route="listPayments",method="GET",status="200"\} \d+/);
  expect(res.text).toMatch(/http_requests_total\{route="retrievePayment",method="GET",status="404"\} \d+/);
  expect(res.text).toMatch(/http_request_duration_seconds_bucket\{le="0\.05",route="listPayments",method="GET",status="200"\} \d+/);
  expect(res.text).toMatch(/workflow_outcomes_total|# HELP workflow_outcomes_total/);
});

it('the worker exposes provider latency, status changes and webhook delivery results', async () => {
  const merchant = await createMerchant(api);
  const created = await call(api, 'POST', '/v1/payments', { key: merchant.testKey, body: directPaymentBody() });
  expect(created.status).toBe(201);
  const text = await eventually(
    async () => (await fetch(`http://127.0.0.1:${TEST_ENV.workerMetricsPort}/metrics`)).text(),
    (t) => /workflow_status_changes_total\{object="payment",status="succeeded"\} \d+/.test(t),
  );
  expect(text).toMatch(/provider_request_duration_seconds_count\{operation="authorize",outcome="processing"\} \d+/);
  expect(text).toMatch(/# TYPE webhook_delivery_attempts_total counter/);
});
