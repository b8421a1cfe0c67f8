// The SDK (sdk/) is typed from the document the service serves: its committed types must be what
// openapi-typescript makes of GET /openapi.json today (else `npm run sdk:types`), it must build on
// its own with its own tsconfig, and its one runtime dependency is the library webhook verification
// needs. Its README's example compiles against it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateSdkTypes, SDK_TYPES_FILE } from '../../scripts/generate-sdk-types';
import { PROJECT_ROOT } from '../../src/config';
import { DEFAULT_VERSION } from '../../src/representations/versions';

const SDK = path.join(PROJECT_ROOT, 'sdk');

// Each test runs openapi-typescript or tsc in a child process: seconds alone, a minute or more on a
// busy machine with the other suites beside it.
jest.setTimeout(180_000);

it('the committed types are what openapi-typescript makes of the served document (npm run sdk:types)', async () => {
  const generated = await generateSdkTypes();
  expect(generated).toContain(`Service-Version ${DEFAULT_VERSION}`);
  // Not toEqual: a diff of 4000 lines helps nobody; the command that fixes it does.
  const upToDate = generated === readFileSync(SDK_TYPES_FILE, 'utf8');
  expect({ upToDate, fix: 'npm run sdk:types' }).toEqual({ upToDate: true, fix: 'npm run sdk:types' });
});

it('pins the version its types describe', () => {
  expect(readFileSync(path.join(SDK, 'src', 'types.ts'), 'utf8')).toContain(`API_VERSION: components['parameters']['ServiceVersion'] = '${DEFAULT_VERSION}'`);
});

it('is a package whose one runtime dependency is standardwebhooks, with the card-payments bin (sdk-is-standalone in .dependency-cruiser.cjs keeps its imports to these)', () => {
  const pkg = JSON.parse(readFileSync(path.join(SDK, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string>; bin: Record<string, string> };
  expect(pkg.name).toBe('@card-payments/sdk');
  expect(Object.keys(pkg.dependencies)).toEqual(['standardwebhooks']);
  expect(pkg.bin).toEqual({ 'card-payments': 'dist/cli/main.js' });
});

it('builds with its own tsconfig', async () => {
  const result = await promisify(execFile)(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(SDK, 'tsconfig.json'), '--noEmit'])
    .then(() => ({ ok: true, output: '' }), (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }));
  expect(result).toEqual({ ok: true, output: '' });
});

it('the README\'s complete example type-checks against the SDK', async () => {
  const readme = readFileSync(path.join(SDK, 'README.md'), 'utf8');
  const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
  expect(examples.length).toBeGreaterThan(0);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-readme-'));
  try {
    examples.forEach((code, index) => writeFileSync(path.join(dir, `example${index}.ts`), `${code}\nexport {};\n`));
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, target: 'ES2022', module: 'preserve', moduleResolution: 'bundler', types: ['node'], skipLibCheck: true,
        // As installed: the package's name resolves to its sources.
        paths: { '@card-payments/sdk': [path.join(SDK, 'src', 'index.ts')] },
      },
      include: ['*.ts'],
    }));
    symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const result = await promisify(execFile)(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir])
      .then(() => ({ ok: true, output: '' }), (error: { stdout?: string }) => ({ ok: false, output: error.stdout ?? String(error) }));
    expect(result).toEqual({ ok: true, output: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
