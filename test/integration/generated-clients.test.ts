// Clients nobody here wrote, generated from the document the service serves at /openapi.json: a Go
// client by oapi-codegen v2.8.2 and TypeScript types by openapi-typescript (with openapi-fetch), each
// with no option beyond the defaults. A program on each (test/integration/fixtures/generated-clients/)
// creates a Direct Payment with typed fields, waits for it to succeed and lists Payments filtered by
// status, against the real service. Go modules come from the Go module proxy on the first run and
// from the module and build caches (outside the checkout) afterwards.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config';
import { useTestApi } from '../helpers/api';

jest.setTimeout(600_000);

const run = promisify(execFile);
const FIXTURES = path.join(PROJECT_ROOT, 'test', 'integration', 'fixtures', 'generated-clients');
const GO = '/usr/local/go/bin/go';
const OAPI_CODEGEN = 'github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2';

const t = useTestApi({ merchant: { name: 'Generated Clients Shop' } });
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function workspace(fixture: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `generated-${fixture}-`));
  dirs.push(dir);
  fs.cpSync(path.join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

interface Step { step: string; value: any }

/** What a program printed, one JSON line per step, by step. */
function steps(stdout: string): Record<string, any> {
  return Object.fromEntries(stdout.trim().split('\n').map((line) => JSON.parse(line) as Step).map(({ step, value }) => [step, value]));
}

/** Both programs do the same: one new Payment, SUCCEEDED, found by the status filter and only there. */
function expectTheJourney(output: Record<string, any>): void {
  expect(output.created).toEqual({ id: expect.stringMatching(/^pay_[A-Za-z0-9]{24}$/), status: 'PROCESSING', amount: 4999, currency: 'EUR' });
  expect(output.settled).toEqual({ id: output.created.id, status: 'SUCCEEDED', amount_refundable: 4999 });
  expect(output.succeeded).toContain(output.created.id);
  expect(output.failed_or_expired).not.toContain(output.created.id);
}

const programEnv = () => ({ PAYMENTS_BASE_URL: t.api.url, PAYMENTS_API_KEY: t.merchant.testKey });

it('Go: oapi-codegen generates a client from the served document, and a program on it creates and lists Payments', async () => {
  const dir = workspace('go');
  const document = await (await fetch(`${t.api.url}/openapi.json`)).text();
  fs.writeFileSync(path.join(dir, 'openapi.json'), document);
  fs.mkdirSync(path.join(dir, 'payments'));
  // A toolchain of its own would be downloaded; the module cache and build cache stay the defaults.
  const env = { PATH: `${path.dirname(GO)}:${process.env.PATH}`, HOME: os.homedir(), GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
  await run(GO, ['run', OAPI_CODEGEN, '-config', 'oapi-codegen.yaml', 'openapi.json'], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
  const generated = fs.readFileSync(path.join(dir, 'payments', 'client.gen.go'), 'utf8');
  // Plain types: the request body has the fields, the filter its enum, the answer is one Payment type.
  expect(generated).toMatch(/type DirectPaymentRequest struct \{[\s\S]*?Amount int64 `json:"amount"`/);
  expect(generated).toContain('Status *[]ListPaymentsParamsStatus `form:"status,omitempty"');
  expect(generated).toContain('JSON201 *Payment\n');
  expect(generated).not.toMatch(/PaymentB\b/);
  // A one-value field is a named string type, not `interface{}`.
  expect(generated).toContain('Type DirectPaymentRequestPaymentMethodDataType `json:"type"`');
  await run(GO, ['build', '-o', 'merchant', '.'], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
  const { stdout } = await run(path.join(dir, 'merchant'), [], { cwd: dir, env: programEnv() });
  expectTheJourney(steps(stdout));
});

it('TypeScript: openapi-typescript generates types from the served document, and a program on them type-checks and runs', async () => {
  const dir = workspace('ts');
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  // Run in the merchant's directory, as a merchant would: no project configuration applies.
  const generated = await run(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/openapi-typescript/bin/cli.js'), `${t.api.url}/openapi.json`, '-o', 'schema.ts'], {
    cwd: dir, maxBuffer: 64 * 1024 * 1024,
  });
  expect(generated.stderr).not.toMatch(/error/i);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'ES2022', lib: ['ES2022', 'DOM'], module: 'preserve', moduleResolution: 'bundler', types: ['node'], skipLibCheck: true },
    files: ['program.ts'],
  }));
  const checked = await run(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir])
    .then(() => ({ ok: true, output: '' }), (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }));
  expect(checked).toEqual({ ok: true, output: '' });
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(dir, 'program.ts')], { cwd: dir, env: { ...programEnv(), PATH: process.env.PATH! } });
  expectTheJourney(steps(stdout));
});
