// Writes the Markdown report: machine, configuration, targets, every figure, EXPLAIN plans.
import fs from 'node:fs';
import type { Explained } from './explain';
import type { Machine } from './machine';
import type { StepResult } from '../scenarios';

export interface RunRecord {
  label: string;
  mode: 'short' | 'full';
  startedAt: string;
  finishedAt: string;
  machine: Machine;
  loadBefore: number[];
  loadAfter: number[];
  configuration: Record<string, string>;
  seeding: Record<string, number | string>;
  /** Results per Temporal server (`sqlite`, `postgres`). */
  servers: Record<string, { description: string; steps: StepResult[] }>;
  explain: Explained[];
  notes: string[];
}

const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const rate = (v: number | null) => (v === null ? 'max' : String(v));

function stepTable(steps: StepResult[]): string[] {
  const lines = [
    '| scenario | step | target/s | achieved 2xx/s | 2xx | non-2xx | errors | p50 ms | p95 ms | p99 ms | max ms | sent late p99 ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of steps) {
    const codes = Object.entries(s.statusCodes).filter(([c]) => !c.startsWith('2')).map(([c, n]) => `${n}x${c}`).join(' ');
    const flag = s.cutOff ? ' (cut off: could not keep the rate)' : s.saturated ? ' (could not keep the rate)' : '';
    lines.push(`| ${s.scenario} | ${s.name}${flag} | ${rate(s.targetRate)} | ${s.throughput.toFixed(1)} | ${s.ok} | ${s.non2xx}${codes ? ` (${codes})` : ''} | ${s.errors} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${ms(s.sendLateness?.p99)} |`);
  }
  return lines;
}

function lagTable(steps: StepResult[]): string[] {
  const withLag = steps.filter((s) => s.webhookLag);
  if (!withLag.length) return [];
  const lines = [
    '| during | creates/s | delivered | p50 ms | p95 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of withLag) {
    const l = s.webhookLag!;
    lines.push(`| ${s.scenario}, ${s.name} | ${s.throughput.toFixed(1)} | ${l.delivered}/${l.expected} | ${ms(l.p50)} | ${ms(l.p95)} | ${ms(l.p99)} | ${ms(l.max)} |`);
  }
  return lines;
}

/** Parts of the system in the CPU table, in order; worker processes and baseline processes summed. */
const CPU_PARTS: Array<[string, (name: string) => boolean]> = [
  ['API', (n) => n === 'api'],
  ['worker', (n) => n.startsWith('worker-')],
  ['Temporal', (n) => n === 'temporal'],
  ['MariaDB', (n) => n === 'mariadb'],
  ['PostgreSQL', (n) => n === 'postgres'],
  ['sandbox', (n) => n === 'sandbox'],
  ['receiver', (n) => n === 'receiver'],
  ['baseline', (n) => n.startsWith('baseline-')],
  ['load generator', (n) => n === 'harness'],
  ['rest of machine', (n) => n === 'other'],
];

/** Runs recorded before the statement meter have no statements column. */
function countsStatements(steps: StepResult[]): boolean {
  return steps.some((s) => s.cpu && s.ok > 0 && s.statements !== undefined);
}

function cpuTable(steps: StepResult[]): string[] {
  const metered = steps.filter((s) => s.cpu && s.ok > 0);
  if (!metered.length) return [];
  const counted = countsStatements(steps);
  const lines = [
    `| scenario | step | cores busy | CPU ms per 2xx | ${CPU_PARTS.map(([part]) => part).join(' | ')} |${counted ? ' SQL statements per 2xx |' : ''}`,
    `|---|---|---:|---:|${CPU_PARTS.map(() => '---:').join('|')}|${counted ? '---:|' : ''}`,
  ];
  for (const s of metered) {
    const { seconds, wallSeconds } = s.cpu!;
    const perAnswer = (cpuSeconds: number) => ms((cpuSeconds * 1000) / s.ok);
    const parts = CPU_PARTS.map(([, match]) => perAnswer(Object.entries(seconds).filter(([name]) => name !== 'total' && match(name)).reduce((sum, [, v]) => sum + v, 0)));
    const statements = !counted ? '' : ` ${s.statements === undefined ? 'n/a' : (s.statements / s.ok).toFixed(1)} |`;
    lines.push(`| ${s.scenario} | ${s.name} | ${(seconds.total! / wallSeconds).toFixed(2)} | ${perAnswer(seconds.total!)} | ${parts.join(' | ')} |${statements}`);
  }
  return lines;
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | null;
}

/** The issue's targets, evaluated on one server's steps. */
export function checkTargets(steps: StepResult[]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const baseline = steps.filter((s) => s.scenario.startsWith('baseline (a)'));
  const create = steps.filter((s) => s.scenario.startsWith('POST /v1/payments frictionless'));
  for (const c of create) {
    const b = baseline.find((x) => x.targetRate === c.targetRate && (c.targetRate !== null || x.connections === c.connections));
    if (!b) continue;
    if (c.targetRate !== null) {
      checks.push({ target: `create p50 <= 1.5x baseline (a) at ${c.targetRate}/s`, measured: `${ms(c.p50)} vs ${ms(b.p50)} ms = ${(c.p50 / b.p50).toFixed(2)}x`, met: c.p50 <= 1.5 * b.p50 });
      checks.push({ target: `create p99 <= 3x baseline (a) at ${c.targetRate}/s`, measured: `${ms(c.p99)} vs ${ms(b.p99)} ms = ${(c.p99 / b.p99).toFixed(2)}x`, met: c.p99 <= 3 * b.p99 });
    } else {
      checks.push({ target: 'create saturation throughput >= 0.8x baseline (a)', measured: `${c.throughput.toFixed(1)} vs ${b.throughput.toFixed(1)}/s = ${(c.throughput / b.throughput).toFixed(2)}x`, met: c.throughput >= 0.8 * b.throughput });
    }
  }
  for (const g of steps.filter((s) => s.scenario.startsWith('GET /v1/payments/{id}') && s.targetRate !== null)) {
    checks.push({ target: `GET /v1/payments/{id} p99 < 5 ms at ${g.targetRate}/s`, measured: `${ms(g.p99)} ms`, met: g.p99 < 5 });
  }
  for (const p of steps.filter((s) => s.scenario.startsWith('GET /v1/payouts') && s.targetRate !== null)) {
    checks.push({ target: `payouts p99 < 50 ms: ${p.scenario.replace('GET /v1/payouts ', '')}`, measured: `${ms(p.p99)} ms`, met: p.p99 < 50 });
  }
  for (const s of steps.filter((x) => x.webhookLag && x.targetRate !== null)) {
    checks.push({ target: `webhook lag p99 < 1 s (${s.scenario}, ${s.name})`, measured: `${ms(s.webhookLag!.p99)} ms (${s.webhookLag!.delivered}/${s.webhookLag!.expected} delivered)`, met: s.webhookLag!.p99 < 1000 && s.webhookLag!.delivered === s.webhookLag!.expected });
  }
  return checks;
}

function planText(rows: Array<Record<string, unknown>>): string[] {
  if (!rows.length) return ['(no plan rows)'];
  const columns = Object.keys(rows[0]!);
  return [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${columns.map((c) => String(r[c] ?? 'NULL').replace(/\|/g, '\\|').replace(/\n/g, ' ')).join(' | ')} |`),
  ];
}

export function renderReport(run: RunRecord, notesMarkdown: string | null): string {
  const m = run.machine;
  const out: string[] = [
    `# Benchmark report (${run.mode} mode)`,
    '',
    `Generated by \`npm run bench${run.mode === 'full' ? ' -- --full' : ''}\` (bench/run.ts) on ${run.startedAt} (finished ${run.finishedAt}), commit \`${m.commit}\`, label \`${run.label}\`.`,
    'Figures are noisy: the machine is small and shared. Compare the ratios to the baselines measured in the same run.',
    '',
    '## Machine',
    '',
    `- CPU: ${m.cpuModel}, ${m.nproc} cores (nproc)`,
    `- Memory: ${m.memoryGiB} GiB`,
    `- Kernel: ${m.kernel}; Node ${m.node}`,
    `- Load average (1, 5, 15 min) before: ${run.loadBefore.map((v) => v.toFixed(2)).join(', ')}; after: ${run.loadAfter.map((v) => v.toFixed(2)).join(', ')}`,
    '',
    '## Configuration',
    '',
    ...Object.entries(run.configuration).map(([k, v]) => `- ${k}: ${v}`),
    '',
    '## Seeded data',
    '',
    ...Object.entries(run.seeding).map(([k, v]) => `- ${k}: ${v}`),
    '',
  ];
  for (const [server, result] of Object.entries(run.servers)) {
    out.push(`## Results: ${server}`, '', result.description, '');
    const checks = checkTargets(result.steps);
    if (checks.length) {
      out.push('### Targets', '', '| target | measured | met |', '|---|---|---|');
      for (const c of checks) out.push(`| ${c.target} | ${c.measured} | ${c.met === null ? '-' : c.met ? 'yes' : '**no**'} |`);
      out.push('');
    }
    out.push('### All steps', '', 'Latency is measured at the client for 2xx answers; paced steps send at a fixed rate over many connections and count each latency from the planned send time ("sent late": how late the load generator sent, already inside the latency), saturation steps send back to back on a fixed number of connections.', '', ...stepTable(result.steps), '');
    const cpu = cpuTable(result.steps);
    const statementsNote = countsStatements(result.steps) ? ' The last column is the statements MariaDB ran for every client during the step (its `Questions` counter; bench/lib/statements.ts) per 2xx answer: round trips, counted exactly.' : '';
    if (cpu.length) out.push('### CPU per answer', '', 'CPU time of each part of the system while the step ran (user + system, all threads, from /proc; bench/lib/cpu.ts), divided by the step\'s 2xx answers; "cores busy" is the total over the step\'s wall time (the machine has ' + run.machine.nproc + '). Work a request leaves behind after the step (a webhook still being delivered) counts in the next step.' + statementsNote, '', ...cpu, '');
    const lag = lagTable(result.steps);
    if (lag.length) out.push('### Webhook lag', '', 'Arrival at the local receiver minus the arrival of the create\'s 201 at the client (the status change happened before the 201, so this slightly understates the lag).', '', ...lag, '');
  }
  if (run.explain.length) {
    out.push('## EXPLAIN plans of the read paths', '', 'Each read-model function was run once against the seeded database with a query logger; every SELECT it issued is shown with its EXPLAIN and its single-run time.', '');
    for (const e of run.explain) {
      out.push(`### ${e.label}`, '');
      for (const q of e.queries) {
        out.push('```sql', q.sql, `-- parameters: ${JSON.stringify(q.parameters)}`, `-- ${q.ms.toFixed(1)} ms`, '```', '', ...planText(q.plan), '');
      }
    }
  }
  if (run.notes.length) out.push('## Run notes', '', ...run.notes.map((n) => `- ${n}`), '');
  if (notesMarkdown) out.push(notesMarkdown.trim(), '');
  return out.join('\n');
}

export function writeReport(file: string, run: RunRecord, notesFile: string): void {
  const notes = fs.existsSync(notesFile) ? fs.readFileSync(notesFile, 'utf8') : null;
  fs.writeFileSync(file, renderReport(run, notes));
}
