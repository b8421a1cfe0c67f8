// INTERNAL_BASE_URL (CONTRACT section 16): the acquirer's notifications go to the API's internal
// address, not to PUBLIC_BASE_URL, which is what browsers use and may not be reachable from the
// acquirer's network at all (under compose it is `localhost`, the sandbox container itself).
import { useTestApi } from '../helpers/api';
import { createDirectPayment, waitForStatus } from '../helpers/payments';
import { freePort } from '../helpers/processes';
import { openPage, submitOutcome } from '../helpers/sandbox';

const t = useTestApi({
  config: async () => {
    const port = await freePort();
    // Port 1 on loopback refuses every connection: a notification sent there is lost. The action
    // lives 10 minutes, so the look-up at its expiry cannot stand in for the notification.
    return { port, publicBaseUrl: 'http://127.0.0.1:1', publicBaseUrlSet: true, internalBaseUrl: `http://127.0.0.1:${port}`, paymentActionTtlSeconds: 600 };
  },
});

it('a 3D Secure payment completes when only INTERNAL_BASE_URL reaches the API', async () => {
  const res = await createDirectPayment(t.api, t.merchant.testKey, {}, { number: '4000000000003220' });
  expect(res.status).toBe(201);
  expect(res.json.status).toBe('REQUIRES_ACTION');
  const url = res.json.next_action.redirect_url as string;
  expect((await openPage(url)).status).toBe(200);
  const answer = await submitOutcome(url, 'authenticate');
  // The shopper is sent back to the public address (unreachable here, and not followed): only
  // the acquirer's notification can move the payment on.
  expect(answer.location).toMatch(/^http:\/\/127\.0\.0\.1:1\/checkout\/return\//);
  const done = await waitForStatus(t.api, t.merchant.testKey, res.json.id, 'SUCCEEDED', 20_000);
  expect(done.status).toBe('SUCCEEDED');
});
