// Where webhooks and callbacks may go (src/webhooks/destination.ts): public addresses in both
// modes, loopback in test mode only and never on a port of the service itself.
import { httpLimits, loadConfig, type Config } from '../../src/config';
import { addressRefusal, destinationPolicy, urlRefusal } from '../../src/webhooks/destination';
import { postJson, REFUSED_PREFIX } from '../../src/webhooks/http-post';

function settings(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig(),
    port: 3000,
    publicBaseUrl: 'https://pay.example.com',
    sandboxPort: 3100,
    sandboxUrl: 'http://127.0.0.1:3100',
    liveProviderUrl: 'https://acquirer.example.net',
    temporalAddress: '127.0.0.1:7233',
    temporalUiPort: 8233,
    temporalHttpPort: 7243,
    temporalMetricsPort: 9100,
    apiMetricsPort: 9465,
    workerMetricsPort: 9464,
    webhookAllowLoopback: true,
    codecServer: { host: '127.0.0.1', port: 3200, corsOrigins: [], authToken: null, http: httpLimits() },
    ...overrides,
  };
}

const policy = destinationPolicy(settings());

describe('destinationPolicy', () => {
  it('lists every port the service listens on, from its settings', () => {
    expect([...policy.ownPorts].sort((a, b) => a - b)).toEqual([3000, 3100, 3200, 7233, 7243, 8233, 9100, 9464, 9465]);
    expect([...policy.ownOrigins].sort()).toEqual(['127.0.0.1:3100', 'acquirer.example.net:443', 'pay.example.com:443']);
  });

  it('takes ports written in the sandbox and public URLs too, but no default 80 or 443', () => {
    const other = destinationPolicy(settings({ sandboxUrl: 'http://127.0.0.1:4100', publicBaseUrl: 'http://localhost:4000', apiMetricsPort: null, temporalMetricsPort: null, workerMetricsPort: 0 }));
    expect(other.ownPorts.has(4100)).toBe(true);
    expect(other.ownPorts.has(4000)).toBe(true);
    expect(other.ownPorts.has(0)).toBe(false);
    expect(other.ownPorts.has(443)).toBe(false);
    expect(other.ownPorts.has(80)).toBe(false);
  });

  it('lets loopback through in development and not in production, unless set', () => {
    const env = { ...process.env };
    try {
      process.env.NODE_ENV = 'production';
      delete process.env.WEBHOOK_ALLOW_LOOPBACK;
      expect(loadConfig().webhookAllowLoopback).toBe(false);
      process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
      expect(loadConfig().webhookAllowLoopback).toBe(true);
      process.env.NODE_ENV = 'development';
      delete process.env.WEBHOOK_ALLOW_LOOPBACK;
      expect(loadConfig().webhookAllowLoopback).toBe(true);
      process.env.WEBHOOK_ALLOW_LOOPBACK = 'maybe';
      expect(() => loadConfig()).toThrow(/WEBHOOK_ALLOW_LOOPBACK/);
    } finally {
      process.env = env;
    }
  });
});

describe('urlRefusal in test mode', () => {
  it.each([
    ['the sandbox control endpoints', 'http://127.0.0.1:3100/_sandbox/reset'],
    ['the sandbox by name (may resolve to ::1)', 'http://localhost:3100/_sandbox/faults'],
    ['a subdomain of localhost', 'http://api.localhost:3000/v1/payments'],
    ['localhost with a trailing dot', 'http://localhost.:3100/_sandbox/reset'],
    ['IPv6 loopback', 'http://[::1]:3100/_sandbox/reset'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]:3100/_sandbox/reset'],
    ['another loopback address', 'http://127.0.0.2:3000/v1/payments'],
    ['a decimal IPv4 form', 'http://2130706433:3100/_sandbox/reset'],
    ['a short IPv4 form', 'http://127.1:3100/_sandbox/reset'],
    ['a hex IPv4 form', 'http://0x7f.0.0.1:3100/_sandbox/reset'],
    ['the API', 'http://127.0.0.1:3000/v1/payments'],
    ['the API metrics port', 'http://127.0.0.1:9465/metrics'],
    ['the worker metrics port', 'http://127.0.0.1:9464/metrics'],
    ['Temporal gRPC', 'http://127.0.0.1:7233/'],
    ['the Temporal HTTP API', 'http://127.0.0.1:7243/api/v1/namespaces/default/workflows'],
    ['the Temporal UI', 'http://localhost:8233/'],
    ['the SDK metrics port', 'http://127.0.0.1:9100/metrics'],
    ['the public URL of the API, over https', 'https://pay.example.com/v1/payments'],
    ['the public URL of the API, with its port written out', 'https://PAY.example.com:443/x'],
    ['the live acquirer', 'https://acquirer.example.net/v1/payouts'],
  ])('refuses %s', (_label, url) => {
    expect(urlRefusal(url, false, policy)).toEqual(expect.any(String));
  });

  it.each([
    ['0.0.0.0 (connects to this host on Linux)', 'http://0.0.0.0:8080/hook'],
    ['the unspecified IPv6 address', 'http://[::]:8080/hook'],
    ['a private address', 'http://10.0.0.8/hook'],
    ['a private address over https', 'https://192.168.1.10/hook'],
    ['the cloud metadata service', 'http://169.254.169.254/latest/meta-data/'],
    ['a unique-local IPv6 address', 'http://[fd00::1]/hook'],
  ])('refuses %s as not public, as in live mode', (_label, url) => {
    expect(urlRefusal(url, false, policy)).toBe('destination is not a public address');
    expect(urlRefusal(url, true, policy)).toBe('destination is not a public address');
  });

  it.each([
    ['a local receiver', 'http://127.0.0.1:4567/webhooks'],
    ['a local receiver by name', 'http://localhost:8080/webhooks'],
    ['a local receiver on port 80', 'http://localhost/webhooks'],
    ['IPv6 loopback on another port', 'http://[::1]:4567/webhooks'],
    ['a public name', 'https://shop.example/webhooks'],
    ['a public address', 'https://93.184.215.14/webhooks'],
  ])('allows %s', (_label, url) => {
    expect(urlRefusal(url, false, policy)).toBeNull();
  });

  it('refuses what is not an http(s) URL', () => {
    for (const url of ['ftp://shop.example/x', 'file:///etc/passwd', 'not a url', 'gopher://127.0.0.1:6379/_']) {
      expect(urlRefusal(url, false, policy)).toMatch(/not an (absolute|http)/);
    }
  });

  it('refuses loopback altogether when it is not allowed', () => {
    const closed = destinationPolicy(settings({ webhookAllowLoopback: false }));
    expect(urlRefusal('http://127.0.0.1:4567/webhooks', false, closed)).toMatch(/WEBHOOK_ALLOW_LOOPBACK/);
    expect(urlRefusal('http://localhost:4567/webhooks', false, closed)).toMatch(/WEBHOOK_ALLOW_LOOPBACK/);
    expect(urlRefusal('https://shop.example/webhooks', false, closed)).toBeNull();
  });
});

describe('urlRefusal in live mode', () => {
  it('refuses loopback on any port, by address or by name', () => {
    for (const url of ['https://127.0.0.1:4567/webhooks', 'https://localhost/webhooks', 'https://[::1]/webhooks']) {
      expect(urlRefusal(url, true, policy)).toMatch(/loopback/);
    }
    expect(urlRefusal('https://shop.example/webhooks', true, policy)).toBeNull();
  });

  it('refuses plain http, whatever the address: live events carry cardholder names and e-mails', () => {
    for (const url of ['http://shop.example/webhooks', 'http://1.1.1.1:8080/webhooks', 'HTTP://SHOP.EXAMPLE/webhooks']) {
      expect(urlRefusal(url, true, policy)).toBe('live mode sends events over https only');
      expect(urlRefusal(url, false, policy)).toBeNull();
    }
  });

  it('a delivery to a live http URL (stored before this rule) is refused before any connection', async () => {
    const result = await postJson('http://1.1.1.1:9/webhooks', '{}', {}, { timeoutMs: 2000, livemode: true, policy });
    expect(result).toEqual({ statusCode: null, error: `${REFUSED_PREFIX}live mode sends events over https only`, latencyMs: 0 });
  });
});

describe('addressRefusal (each address a name resolves to)', () => {
  it('judges resolved addresses with the port of the URL', () => {
    expect(addressRefusal('::1', 3100, false, policy)).toMatch(/port 3100/);
    expect(addressRefusal('127.0.0.1', 3100, false, policy)).toMatch(/port 3100/);
    expect(addressRefusal('::ffff:127.0.0.1', 3000, false, policy)).toMatch(/port 3000/);
    expect(addressRefusal('127.0.0.1', 4567, false, policy)).toBeNull();
    expect(addressRefusal('127.0.0.1', 4567, true, policy)).toMatch(/loopback/);
    expect(addressRefusal('10.1.2.3', 443, false, policy)).toBe('destination is not a public address');
    expect(addressRefusal('93.184.215.14', 3100, true, policy)).toBeNull();
  });
});
