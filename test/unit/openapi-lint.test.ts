// The OpenAPI document passes Redocly's recommended rules as redocly.yaml sets them (every warning an
// error, two rules off with their reasons there) with no problem at all. Runs offline: the CLI is a
// pinned dev dependency, its rules ship with it, and telemetry and update checks are off.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openApiDocument } from '../../src/api/openapi/document';
import { PROJECT_ROOT } from '../../src/config';
import { KNOWN_VERSIONS } from '../../src/representations/versions';

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ pointer: string }>;
}

function lint(document: unknown): { status: number | null; problems: LintProblem[]; stderr: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const result = spawnSync(process.execPath, [
      path.join(PROJECT_ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file,
      '--config', path.join(PROJECT_ROOT, 'redocly.yaml'), '--format', 'json',
    ], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = result.stdout.slice(result.stdout.indexOf('{'));
    return { status: result.status, problems: report ? (JSON.parse(report) as { problems: LintProblem[] }).problems : [], stderr: result.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const readable = (problems: LintProblem[]) => problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);

describe('redocly lint', () => {
  it.each(KNOWN_VERSIONS)('the served document of %s has no problem under the project rules', (version) => {
    const { status, problems, stderr } = lint(openApiDocument('https://payments.shop.test', version));
    expect(readable(problems)).toEqual([]);
    expect({ status, stderr: status === 0 ? '' : stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('fails a document the rules reject (no servers, an illogical oneOf)', () => {
    const { servers: _servers, ...withoutServers } = openApiDocument('https://payments.shop.test');
    const broken = JSON.parse(JSON.stringify(withoutServers));
    broken.paths['/v1/payments'].get.responses['200'].content['application/json'].schema = {
      oneOf: [{ $ref: '#/components/schemas/PaymentList' }],
    };
    const { status, problems } = lint(broken);
    expect(status).not.toBe(0);
    expect(new Set(problems.map((problem) => problem.ruleId))).toEqual(new Set(['no-empty-servers', 'no-illogical-composition-keywords']));
  });
});
