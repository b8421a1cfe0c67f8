// The codec server (src/temporal/codec-server.ts) over HTTP: Temporal's remote codec protocol,
// CORS for the configured UI origin only, and the operator credential (bearer or login session).
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { httpLimits, type CodecServerSettings } from '../../src/config';
import { EncryptionCodec, keyIdOf } from '../../src/temporal/codec';
import { startCodecServer, type RunningCodecServer } from '../../src/temporal/codec-server';

const UI = 'http://127.0.0.1:8233';
const TOKEN = randomBytes(24).toString('base64url');
const codec = new EncryptionCodec({ currentKeyId: 'k1', keys: { k1: randomBytes(32).toString('hex') } });
const logger = pino({ level: 'silent' });
const PayloadJson = temporal.api.common.v1.Payload;
const asJson = (value: unknown) => PayloadJson.toObject(PayloadJson.fromObject(defaultPayloadConverter.toPayload(value)!), { bytes: String });

async function serve(settings: Partial<CodecServerSettings> = {}): Promise<RunningCodecServer> {
  return startCodecServer({ settings: { host: '127.0.0.1', port: 0, corsOrigins: [UI, 'http://localhost:8233'], authToken: null, http: httpLimits(), ...settings }, namespace: 'default', codec, logger });
}

function post(server: RunningCodecServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers }, body: JSON.stringify(body) });
}

describe('on loopback without a credential', () => {
  let server: RunningCodecServer;
  beforeAll(async () => { server = await serve(); });
  afterAll(() => server.close());

  it('encodes and decodes payloads in Temporal JSON form', async () => {
    const plain = asJson({ holder_name: 'Zebulon Quillfeather' });
    const encoded = await post(server, '/encode', { payloads: [plain] });
    expect(encoded.status).toBe(200);
    const { payloads } = await encoded.json() as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(keyIdOf(PayloadJson.fromObject(payloads[0]!))).toBe('k1');
    expect(Buffer.from(payloads[0]!.data, 'base64').toString('latin1')).not.toContain('Zebulon');

    const decoded = await post(server, '/decode', { payloads });
    expect(decoded.status).toBe(200);
    expect(await decoded.json()).toEqual({ payloads: [plain] });
    // What it did not encrypt passes through; an empty page is fine.
    expect(await (await post(server, '/decode', { payloads: [plain] })).json()).toEqual({ payloads: [plain] });
    expect(await (await post(server, '/decode', { payloads: [] })).json()).toEqual({ payloads: [] });
    // Proto3 JSON leaves an empty list out: the CLI sends `{}`.
    expect(await (await post(server, '/decode', {})).json()).toEqual({ payloads: [] });
  });

  it.each<[string, RequestInit & { path?: string }, number, string]>([
    ['a body that is not JSON', { body: '{"payloads":', headers: { 'Content-Type': 'application/json' } }, 400, 'request_body_invalid'],
    ['a body of another type', { body: 'payloads', headers: { 'Content-Type': 'text/plain' } }, 400, 'request_body_invalid'],
    ['a payload whose data is not base64', { body: JSON.stringify({ payloads: [{ metadata: {}, data: '%%' }] }), headers: { 'Content-Type': 'application/json' } }, 400, 'request_body_invalid'],
    ['another member', { body: JSON.stringify({ items: [] }), headers: { 'Content-Type': 'application/json' } }, 400, 'request_body_invalid'],
    ['another namespace', { body: JSON.stringify({ payloads: [] }), headers: { 'Content-Type': 'application/json', 'X-Namespace': 'other' } }, 400, 'parameter_invalid'],
    ['an unknown route', { path: '/transcode', body: JSON.stringify({ payloads: [] }), headers: { 'Content-Type': 'application/json' } }, 404, 'resource_not_found'],
    ['an undecryptable payload', { body: JSON.stringify({ payloads: [{ metadata: { encoding: Buffer.from('binary/encrypted').toString('base64'), 'encryption-key-id': Buffer.from('k9').toString('base64') }, data: 'AAAA' }] }), headers: { 'Content-Type': 'application/json' } }, 400, 'request_body_invalid'],
  ])('refuses %s with a clear error', async (_label, init, status, code) => {
    const res = await fetch(`${server.url}${init.path ?? '/decode'}`, { method: 'POST', ...init });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
  });

  it('answers CORS for the configured UI origins only, and refuses calls from any other', async () => {
    const preflight = (origin: string) => fetch(`${server.url}/decode`, {
      method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
    });
    const allowed = await preflight(UI);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const refused = await preflight('https://evil.example');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(refused.status).toBe(403);

    const fromUi = await post(server, '/decode', { payloads: [] }, { Origin: 'http://localhost:8233' });
    expect(fromUi.status).toBe(200);
    expect(fromUi.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    const fromElsewhere = await post(server, '/decode', { payloads: [] }, { Origin: 'https://evil.example' });
    expect(fromElsewhere.status).toBe(403);
    expect(fromElsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('has no login page when no credential is configured', async () => {
    expect((await fetch(`${server.url}/login`)).status).toBe(404);
  });
});

describe('with an operator credential', () => {
  let server: RunningCodecServer;
  let encrypted: unknown[];
  beforeAll(async () => {
    server = await serve({ authToken: TOKEN });
    encrypted = ((await (await post(server, '/encode', { payloads: [asJson('Zebulon')] }, { Authorization: `Bearer ${TOKEN}` })).json()) as { payloads: unknown[] }).payloads;
  });
  afterAll(() => server.close());

  it('refuses requests without it or with a wrong one, also on loopback', async () => {
    const attempts: Array<Record<string, string>> = [{}, { Authorization: 'Bearer wrong' }, { Authorization: `Basic ${TOKEN}` }, { Cookie: 'codec_session=1.abc' }];
    for (const headers of attempts) {
      const res = await post(server, '/decode', { payloads: encrypted }, headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    }
    const ok = await post(server, '/decode', { payloads: encrypted }, { Authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ payloads: [asJson('Zebulon')] });
  });

  it('signs an operator in with a session cookie for the UI', async () => {
    const form = (token: string) => fetch(`${server.url}/login`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });
    expect((await fetch(`${server.url}/login`)).status).toBe(200);
    const wrong = await form('nope');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const signedIn = await form(TOKEN);
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^codec_session=\d+\.[A-Za-z0-9_-]{43};/);
    expect(cookie.toLowerCase()).toEqual(expect.stringContaining('httponly'));
    expect(cookie.toLowerCase()).toEqual(expect.stringContaining('samesite=strict'));
    expect(cookie.toLowerCase()).toEqual(expect.stringContaining('secure'));
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    const withSession = await post(server, '/decode', { payloads: encrypted }, { Cookie: session, Origin: UI });
    expect(withSession.status).toBe(200);
    expect(withSession.headers.get('access-control-allow-credentials')).toBe('true');
    // A session forged for a later expiry does not pass.
    const [expires, mac] = session.replace('codec_session=', '').split('.');
    expect((await post(server, '/decode', { payloads: encrypted }, { Cookie: `codec_session=${Number(expires) + 3600}.${mac}` })).status).toBe(401);
  });
});

describe('startCodecServer', () => {
  it('refuses an address other than loopback without a credential', async () => {
    await expect(serve({ host: '0.0.0.0' })).rejects.toThrow(/set CODEC_AUTH_TOKEN to serve it on 0\.0\.0\.0/);
    const open = await serve({ host: '0.0.0.0', authToken: TOKEN });
    try {
      expect((await fetch(`http://127.0.0.1:${open.port}/decode`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"payloads":[]}' })).status).toBe(401);
    } finally {
      await open.close();
    }
  });
});
