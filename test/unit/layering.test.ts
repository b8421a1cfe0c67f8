// The layering rules (.dependency-cruiser.cjs, run on the tree by `npm test`) refuse what they
// name: dependency-cruiser runs with them on a small tree written here, in which each case below
// is one import, and must report that import under the rule's name, fail, and leave the allowed
// imports alone.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../../src/config';

interface Edge {
  from: string;
  to: string;
  typeOnly?: boolean;
}

const REFUSED: Array<Edge & { rule: string }> = [
  { rule: 'domain-is-pure', from: 'src/domain/money.ts', to: 'src/db/entities.ts' },
  { rule: 'config-is-a-leaf', from: 'src/config.ts', to: 'src/domain/ids.ts' },
  { rule: 'migrations-are-frozen', from: 'src/db/migrations/1-grams.ts', to: 'src/read-models/search-index.ts' },
  { rule: 'migrations-only-from-data-source', from: 'src/read-models/payouts.ts', to: 'src/db/migrations/helpers/dialect.ts' },
  { rule: 'workflows-deterministic', from: 'workflows/payout/workflow.ts', to: 'src/temporal/search-attributes.ts' },
  { rule: 'workflows-import-only-types-of-activities', from: 'workflows/refund/workflow.ts', to: 'src/db/entities.ts', typeOnly: true },
  { rule: 'nothing-imports-workflows', from: 'src/services/payments.ts', to: 'workflows/payment/workflow.ts' },
  { rule: 'contracts-import-only-types', from: 'contracts/payout.ts', to: 'src/domain/payout.ts' },
  { rule: 'contracts-know-only-domain-types', from: 'contracts/payment.ts', to: 'activities/payment.ts', typeOnly: true },
  { rule: 'activities-never-import-workflows', from: 'activities/projection.ts', to: 'workflows/projection.ts', typeOnly: true },
  { rule: 'activities-below-entry-points', from: 'activities/webhooks.ts', to: 'src/api/serializers.ts' },
  { rule: 'services-below-entry-points', from: 'src/services/refunds.ts', to: 'src/api/context.ts', typeOnly: true },
  { rule: 'entry-points-use-services', from: 'src/api/routes/payouts.ts', to: 'src/read-models/payouts.ts' },
  { rule: 'entry-points-use-services', from: 'src/api/routes/refunds.ts', to: 'src/temporal/calls.ts' },
  { rule: 'representations-below-services', from: 'src/representations/payout.ts', to: 'src/read-models/payouts.ts' },
  { rule: 'no-upward-imports-from-data-access', from: 'src/read-models/payments.ts', to: 'src/services/payments.ts' },
  { rule: 'no-upward-imports-from-data-access', from: 'src/webhooks/relay.ts', to: 'src/representations/payout.ts' },
  { rule: 'only-temporal-calls-start-workflows', from: 'src/webhooks/relay.ts', to: 'contracts/webhook-delivery.ts' },
  { rule: 'nothing-imports-entry-point-api', from: 'src/services/hosted.ts', to: 'src/api/versions.ts' },
  { rule: 'nothing-imports-entry-point-worker', from: 'src/api/server.ts', to: 'workers/worker.ts' },
  { rule: 'nothing-imports-entry-point-admin-cli', from: 'src/api/server.ts', to: 'src/admin/cli.ts' },
  { rule: 'nothing-imports-entry-point-sandbox', from: 'src/provider/http-client.ts', to: 'src/provider/sandbox/app.ts' },
  { rule: 'nothing-imports-entry-point-scripts', from: 'workers/main.ts', to: 'scripts/dev.ts' },
  { rule: 'modules-belong-to-a-layer', from: 'src/hosted-page/form.ts', to: 'src/domain/cards.ts' },
  { rule: 'nothing-imports-bench', from: 'src/read-models/payout-search-index.ts', to: 'bench/lib/seed.ts' },
  { rule: 'nothing-imports-bench', from: 'scripts/dev.ts', to: 'bench/lib/processes.ts' },
  { rule: 'bench-workflow-deterministic', from: 'bench/baseline/workflows.ts', to: 'src/db/entities.ts' },
  { rule: 'sdk-is-standalone', from: 'sdk/src/http.ts', to: 'src/domain/errors.ts' },
  { rule: 'sdk-is-standalone', from: 'sdk/src/types.ts', to: 'src/api/openapi/types.ts', typeOnly: true },
  { rule: 'nothing-imports-sdk', from: 'scripts/generate-sdk-types.ts', to: 'sdk/src/types.ts' },
  { rule: 'nothing-imports-workflows', from: 'bench/scenarios.ts', to: 'workflows/payment/state.ts' },
  { rule: 'bench-lib-knows-no-scenario', from: 'bench/lib/explain.ts', to: 'bench/scenarios-payouts.ts', typeOnly: true },
  // With CYCLE_BACK below: a cycle closed by a type-only import counts too.
  { rule: 'no-circular', from: 'src/domain/a.ts', to: 'src/domain/b.ts' },
];
const CYCLE_BACK: Edge = { from: 'src/domain/b.ts', to: 'src/domain/a.ts', typeOnly: true };

const ALLOWED: Edge[] = [
  { from: 'src/api/routes/payments.ts', to: 'src/services/payments.ts' },
  { from: 'src/api/routes/payments.ts', to: 'src/representations/payment-a.ts' },
  { from: 'src/api/server.ts', to: 'src/db/data-source.ts' },
  { from: 'src/services/payments.ts', to: 'src/representations/versions.ts' },
  { from: 'src/services/payments.ts', to: 'src/read-models/payments.ts' },
  { from: 'src/services/payments.ts', to: 'src/temporal/calls.ts' },
  { from: 'src/services/payments.ts', to: 'contracts/payment.ts' },
  { from: 'src/representations/payment-a.ts', to: 'src/domain/payment.ts' },
  { from: 'src/temporal/start-delivery.ts', to: 'contracts/webhook-delivery.ts' },
  { from: 'src/read-models/payments.ts', to: 'contracts/payment.ts', typeOnly: true },
  { from: 'activities/projection.ts', to: 'src/read-models/payments.ts' },
  { from: 'activities/projection.ts', to: 'src/representations/payout.ts' },
  { from: 'workflows/payout/workflow.ts', to: 'src/domain/payout.ts' },
  { from: 'workflows/payout/workflow.ts', to: 'contracts/payout.ts' },
  { from: 'workflows/payout/workflow.ts', to: 'activities/payout.ts', typeOnly: true },
  { from: 'workflows/payout/workflow.ts', to: 'src/provider/types.ts', typeOnly: true },
  { from: 'src/db/data-source.ts', to: 'src/db/migrations/index.ts' },
  { from: 'src/db/migrations/index.ts', to: 'src/db/migrations/1-grams.ts' },
  { from: 'src/db/migrations/1-grams.ts', to: 'src/db/migrations/helpers/dialect.ts' },
  { from: 'workers/worker.ts', to: 'activities/projection.ts' },
  { from: 'scripts/dev.ts', to: 'workers/worker.ts' },
  { from: 'scripts/dev.ts', to: 'src/provider/sandbox/app.ts' },
  { from: 'bench/lib/explain.ts', to: 'src/api/schemas/payouts.ts' },
  { from: 'bench/lib/explain.ts', to: 'src/read-models/payouts.ts' },
  { from: 'bench/baseline/main.ts', to: 'workers/worker.ts' },
  { from: 'bench/baseline/workflows.ts', to: 'bench/baseline/activities.ts', typeOnly: true },
  { from: 'bench/scenarios-endpoints.ts', to: 'contracts/webhook-delivery.ts' },
  { from: 'bench/report.ts', to: 'bench/scenarios.ts' },
  { from: 'bench/report.ts', to: 'bench/lib/machine.ts', typeOnly: true },
  { from: 'contracts/payment.ts', to: 'contracts/refund.ts', typeOnly: true },
  { from: 'contracts/payout.ts', to: 'src/domain/polling.ts', typeOnly: true },
  { from: 'contracts/refund.ts', to: 'src/provider/types.ts', typeOnly: true },
  { from: 'activities/webhooks.ts', to: 'contracts/webhook-delivery.ts', typeOnly: true },
  { from: 'sdk/src/client.ts', to: 'sdk/src/resources/payments.ts' },
];

/** Writes one module per file, importing what the edges from it name. */
function writeTree(dir: string, edges: Edge[]): void {
  const files = new Map<string, string[]>();
  const lines = (file: string) => files.get(file) ?? (files.set(file, []), files.get(file)!);
  edges.forEach((edge, i) => {
    let spec = path.relative(path.dirname(edge.from), edge.to).replace(/\.ts$/, '');
    if (!spec.startsWith('.')) spec = `./${spec}`;
    lines(edge.from).push(edge.typeOnly ? `import type { T } from '${spec}';\nexport type T${i} = T;` : `import { value } from '${spec}';\nexport const value${i} = value;`);
    lines(edge.to);
  });
  for (const [file, body] of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), [...body, 'export const value = 1;', 'export type T = number;', ''].join('\n'));
  }
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true } }));
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

let dir: string;
let violations: Violation[];

/** Every folder of code the check covers: the service and its harnesses. */
const FOLDERS = ['src', 'contracts', 'workflows', 'activities', 'workers', 'scripts', 'bench', 'sdk'];

/** dependency-cruiser as `npm test` runs it (scripts/test.sh), on the tree in `dir`. */
function depcruise(...args: string[]) {
  const cli = path.join(PROJECT_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const folders = FOLDERS;
  return spawnSync(process.execPath, [cli, ...folders, '--config', path.join(PROJECT_ROOT, '.dependency-cruiser.cjs'), ...args], { cwd: dir, encoding: 'utf8' });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layering-'));
  writeTree(dir, [...REFUSED, CYCLE_BACK, ...ALLOWED]);
  violations = (JSON.parse(depcruise('--output-type', 'json').stdout) as { summary: { violations: Violation[] } }).summary.violations;
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the layering check', () => {
  it('covers every folder of code, bench/ included, in `npm test` and `npm run lint:layers`', () => {
    const cruised = `depcruise ${FOLDERS.join(' ')} --config .dependency-cruiser.cjs`;
    const scripts = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['lint:layers']).toBe(cruised);
    expect(fs.readFileSync(path.join(PROJECT_ROOT, 'scripts', 'test.sh'), 'utf8')).toContain(`npx ${cruised}`);
    const folders = fs.readdirSync(PROJECT_ROOT, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !['node_modules', 'test', 'docs', 'dist'].includes(e.name) && !e.name.startsWith('.'))
      .filter((e) => fs.readdirSync(path.join(PROJECT_ROOT, e.name), { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.ts')))
      .map((e) => e.name);
    expect(folders.sort()).toEqual([...FOLDERS].sort());
  });
});

describe('the layering rules', () => {
  it('fail the run when an import breaks one', () => {
    const run = depcruise();
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain('error domain-is-pure: src/domain/money.ts → src/db/entities.ts');
  });

  it.each(REFUSED)('$rule refuses $from -> $to', ({ rule, from, to }) => {
    const reported = violations.filter((v) => v.from === from && (v.to === to || rule === 'no-circular')).map((v) => v.rule.name);
    expect(reported).toContain(rule);
    expect(violations.find((v) => v.rule.name === rule)?.rule.severity).toBe('error');
  });

  it.each(ALLOWED)('allow $from -> $to', ({ from, to }) => {
    expect(violations.filter((v) => v.from === from && v.to === to).map((v) => v.rule.name)).toEqual([]);
  });
});
