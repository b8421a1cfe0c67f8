// A merchant's view of the OpenAPI document: serve it from the real app, generate types with
// `openapi-typescript <url>` (no flags; the project's redocly.yaml applies, as a merchant's Redocly
// config would), and type-check a small program that uses them through `openapi-fetch`: payments,
// refunds, error codes added later, webhooks. The `@ts-expect-error` lines must stay errors, so a
// wrong field name, a missing required header or a widened event type fail the test too.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApp } from '../../src/api/app';
import type { Deps } from '../../src/services/context';
import { loadConfig, PROJECT_ROOT, type Config } from '../../src/config';
import { createLogger } from '../../src/observability/logger';
import { ApiMetrics } from '../../src/observability/metrics';

const run = promisify(execFile);

// Each test runs openapi-typescript or tsc in a child process: seconds alone, a minute or more on a
// busy machine with the other suites beside it.
jest.setTimeout(180_000);
const PUBLIC_BASE_URL = 'https://payments.shop.test';

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths, webhooks } from './schema';

const client = createClient<paths>({ baseUrl: '${PUBLIC_BASE_URL}', headers: { Authorization: 'Bearer svc_test_sk_example' } });

/** Refunds what is left of a Shape A Payment; answers the Refund's status or the error code. */
export async function refundTheRest(id: string): Promise<string> {
  const payment = await client.GET('/v1/payments/{id}', { params: { path: { id } } });
  if (payment.error) return payment.error.error.code;
  // One shape per document: the answer is a Payment, with no union to narrow.
  const refund = await client.POST('/v1/refunds', {
    params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
    body: { payment_id: payment.data.id, amount: payment.data.amount_refundable, reason: 'Goodwill' },
  });
  if (refund.error) return refund.error.error.code;
  const status: 'PENDING' | 'PROCESSING' | 'SUCCEEDED' | 'FAILED' = refund.data.status;
  // @ts-expect-error: a Refund has no \`amount_refunded\` (that is the Payment's)
  refund.data.amount_refunded;
  return status;
}

export async function succeededOrProcessing(): Promise<number> {
  // Repeatable filters are arrays of their enum.
  const page = await client.GET('/v1/payments', { params: { query: { limit: 10, status: ['SUCCEEDED', 'PROCESSING'] } } });
  const created: number[] = page.data?.data.map((payment) => payment.created_at) ?? [];
  // @ts-expect-error: a status that does not exist
  void client.GET('/v1/payments', { params: { query: { status: ['DONE'] } } });
  return created.length;
}

/** Creates a webhook endpoint for payment outcomes; answers its secret, shown only in this answer. */
export async function subscribe(url: string): Promise<string> {
  const created = await client.POST('/v1/webhook_endpoints', {
    params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
    body: { url, enabled_events: ['payment.succeeded', 'payment.failed'] },
  });
  if (created.error) return created.error.error.code;
  await client.DELETE('/v1/webhook_endpoints/{id}', { params: { path: { id: created.data.id } } });
  return created.data.secret;
}

export function misuse(): void {
  // @ts-expect-error: the Idempotency-Key header is required on a create
  void client.POST('/v1/refunds', { body: { payment_id: 'pay_x', amount: 1, reason: 'x' } });
  // @ts-expect-error: \`reason\` misspelled (and so missing)
  void client.POST('/v1/refunds', { params: { header: { 'Idempotency-Key': 'k' } }, body: { payment_id: 'pay_x', amount: 1, reasons: 'x' } });
  // @ts-expect-error: no such operation
  void client.GET('/v1/charges/{id}', { params: { path: { id: 'ch_1' } } });
}

// Codes added after this document are still strings the types accept.
export const laterErrorCode: components['schemas']['Error']['error']['code'] = 'code_added_later';
export const laterFailureCode: NonNullable<components['schemas']['Payment']['failure_code']> = 'failure_added_later';
export const laterRefundFailure: components['schemas']['Refund']['failure'] = { code: 'failure_added_later', message: 'm' };

type PaymentSucceeded = webhooks['payment.succeeded']['post']['requestBody']['content']['application/json'];
export function onPaymentSucceeded(event: PaymentSucceeded): number {
  const type: 'payment.succeeded' = event.type;
  // @ts-expect-error: this webhook's type is exactly payment.succeeded
  const other: 'payment.failed' = event.type;
  // The current version's document: a Payment event carries the Shape A Payment.
  return type.length + other.length + event.data.object.amount_refundable;
}

type AnyEvent = components['schemas']['PaymentEvent'] | components['schemas']['RefundEvent'] | components['schemas']['PayoutEvent'];
export function onEvent(event: AnyEvent): string {
  switch (event.type) {
    case 'refund.succeeded': return event.data.object.payment_id;
    case 'payout.failed': return event.data.object.failure_code ?? 'unknown';
    case 'payment.requires_action': return event.data.object.next_action?.redirect_url ?? '';
    default: return event.data.object.id;
  }
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    module: 'preserve',
    moduleResolution: 'bundler',
    types: [],
    // The DOM library alone takes seconds to check; the generated `schema.ts` is checked in full.
    skipLibCheck: true,
  },
  files: ['program.ts'],
};

let server: http.Server;
let baseUrl: string;
let config: Config;

beforeAll(async () => {
  config = { ...loadConfig(), publicBaseUrl: PUBLIC_BASE_URL };
  const app = createApp({ config, logger: createLogger('api', 'silent'), metrics: new ApiMetrics() } as Deps);
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the served document', () => {
  it('names the configured public base URL as its server, also when that is only known after startup', async () => {
    const served = async () => (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { servers: Array<{ url: string }> };
    expect((await served()).servers.map((entry) => entry.url)).toEqual([PUBLIC_BASE_URL]);
    const page = await (await fetch(`${baseUrl}/docs`)).text();
    expect(page).toContain(`Base URL <code>${PUBLIC_BASE_URL}</code>`);
    // As `startApi` does for port 0: the URL is set once the server listens.
    config.publicBaseUrl = baseUrl;
    try {
      expect((await served()).servers.map((entry) => entry.url)).toEqual([baseUrl]);
    } finally {
      config.publicBaseUrl = PUBLIC_BASE_URL;
    }
  });

  it('generates a typed openapi-fetch client with openapi-typescript, and a program using it type-checks', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-client-'));
    try {
      // Asynchronous: this process serves the document the generator fetches.
      const generated = await run(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/openapi-typescript/bin/cli.js'), `${baseUrl}/openapi.json`], {
        cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024,
      });
      expect(generated.stdout).toContain('export interface webhooks');
      writeFileSync(path.join(dir, 'schema.ts'), generated.stdout);
      writeFileSync(path.join(dir, 'program.ts'), PROGRAM);
      writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
      symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      const checked = await run(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir])
        .then(() => ({ ok: true, output: '' }), (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }));
      expect(checked).toEqual({ ok: true, output: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
