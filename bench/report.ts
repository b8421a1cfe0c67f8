// Writes the Markdown report: machine, configuration, targets, every figure, EXPLAIN plans.
import fs from 'node:fs';
import type { Explained } from './lib/explain';
import type { Machine } from './lib/machine';
import type { TargetCheck } from './lib/target-check';
import { CODEC_SCENARIO, type StepResult } from './scenarios';
import { payoutTargets } from './scenarios-payouts';
import { endpointTargets } from './scenarios-endpoints';
import { refundTargets } from './targets-refunds';

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

/** The API and worker without the payload codec, in runs with the codec cost scenario. */
const PLAIN_PART: [string, (name: string) => boolean] = ['API + worker without codec', (n) => n.startsWith('plain-')];

function cpuTable(steps: StepResult[]): string[] {
  const metered = steps.filter((s) => s.cpu && s.ok > 0);
  if (!metered.length) return [];
  const counted = countsStatements(steps);
  const cpuParts = metered.some((s) => Object.keys(s.cpu!.seconds).some(PLAIN_PART[1])) ? [...CPU_PARTS, PLAIN_PART] : CPU_PARTS;
  const lines = [
    `| scenario | step | cores busy | CPU ms per 2xx | ${cpuParts.map(([part]) => part).join(' | ')} |${counted ? ' SQL statements per 2xx |' : ''}`,
    `|---|---|---:|---:|${cpuParts.map(() => '---:').join('|')}|${counted ? '---:|' : ''}`,
  ];
  for (const s of metered) {
    const { seconds, wallSeconds } = s.cpu!;
    const perAnswer = (cpuSeconds: number) => ms((cpuSeconds * 1000) / s.ok);
    const parts = cpuParts.map(([, match]) => perAnswer(Object.entries(seconds).filter(([name]) => name !== 'total' && match(name)).reduce((sum, [, v]) => sum + v, 0)));
    const statements = !counted ? '' : ` ${s.statements === undefined ? 'n/a' : (s.statements / s.ok).toFixed(1)} |`;
    lines.push(`| ${s.scenario} | ${s.name} | ${(seconds.total! / wallSeconds).toFixed(2)} | ${perAnswer(seconds.total!)} | ${parts.join(' | ')} |${statements}`);
  }
  return lines;
}

interface CodecSide {
  steps: number;
  creates: number;
  failed: number;
  /** Means of the steps' percentiles (each step a few hundred creates at the same rate). */
  p50: number;
  p95: number;
  /**
   * CPU ms per create: every process the bench started (both pairs, Temporal, MariaDB, sandbox,
   * receiver, load generator; the rest of the machine, other users' work, left out), and the API
   * and worker of the configuration measured.
   */
  cpuTotal: number;
  cpuService: number;
}

/** The codec cost steps summed per configuration; null when the run has none with CPU figures. */
export function codecCost(steps: StepResult[]): { on: CodecSide; off: CodecSide } | null {
  const side = (codec: 'on' | 'off'): CodecSide | null => {
    const mine = steps.filter((s) => s.scenario === `${CODEC_SCENARIO}, codec ${codec}` && s.cpu && s.ok > 0);
    if (!mine.length) return null;
    const creates = mine.reduce((n, s) => n + s.ok, 0);
    const mean = (pick: (s: StepResult) => number) => mine.reduce((n, s) => n + pick(s), 0) / mine.length;
    const service = (name: string) => (codec === 'on' ? name === 'api' || name.startsWith('worker-') : name === 'plain-api' || name === 'plain-worker');
    const cpu = (match: (name: string) => boolean) => (1000 * mine.reduce((n, s) => n + Object.entries(s.cpu!.seconds).filter(([k]) => k !== 'total' && match(k)).reduce((a, [, v]) => a + v, 0), 0)) / creates;
    return {
      steps: mine.length, creates, failed: mine.reduce((n, s) => n + s.non2xx + s.errors, 0),
      p50: mean((s) => s.p50), p95: mean((s) => s.p95), cpuTotal: cpu((name) => name !== 'other'), cpuService: cpu(service),
    };
  };
  const on = side('on');
  const off = side('off');
  return on && off ? { on, off } : null;
}

function codecTable(steps: StepResult[]): string[] {
  const cost = codecCost(steps);
  if (!cost) return [];
  const row = (label: string, c: CodecSide) => `| ${label} | ${c.steps} | ${c.creates} | ${c.failed} | ${ms(c.p50)} | ${ms(c.p95)} | ${ms(c.cpuTotal)} | ${ms(c.cpuService)} |`;
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  return [
    '| payload codec | steps | creates | non-2xx + errors | p50 ms (mean of steps) | p95 ms (mean of steps) | CPU ms per create, bench processes | CPU ms per create, API + worker |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    row('on (AES-256-GCM)', cost.on),
    row('off (`TEMPORAL_CODEC=off`)', cost.off),
    `| on / off | | | | ${ratio(cost.on.p50, cost.off.p50)} | ${ratio(cost.on.p95, cost.off.p95)} | ${ratio(cost.on.cpuTotal, cost.off.cpuTotal)} | ${ratio(cost.on.cpuService, cost.off.cpuService)} |`,
  ];
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
  const codec = codecCost(steps);
  if (codec) {
    checks.push({ target: 'create CPU per create with the payload codec <= 1.1x without', measured: `${ms(codec.on.cpuTotal)} vs ${ms(codec.off.cpuTotal)} ms = ${(codec.on.cpuTotal / codec.off.cpuTotal).toFixed(2)}x`, met: codec.on.cpuTotal <= 1.1 * codec.off.cpuTotal });
    checks.push({ target: 'create p50 with the payload codec <= 1.1x without', measured: `${ms(codec.on.p50)} vs ${ms(codec.off.p50)} ms = ${(codec.on.p50 / codec.off.p50).toFixed(2)}x`, met: codec.on.p50 <= 1.1 * codec.off.p50 });
  }
  for (const g of steps.filter((s) => s.scenario.startsWith('GET /v1/payments/{id}') && s.targetRate !== null)) {
    checks.push({ target: `GET /v1/payments/{id} p99 < 5 ms at ${g.targetRate}/s`, measured: `${ms(g.p99)} ms`, met: g.p99 < 5 });
  }
  for (const p of steps.filter((s) => s.scenario.startsWith('GET /v1/payouts') && s.targetRate !== null)) {
    checks.push({ target: `payouts p99 < 50 ms: ${p.scenario.replace('GET /v1/payouts ', '')}`, measured: `${ms(p.p99)} ms`, met: p.p99 < 50 });
  }
  checks.push(...payoutTargets(steps));
  for (const e of steps.filter((s) => s.scenario.startsWith('GET /v1/events') && s.targetRate !== null)) {
    checks.push({ target: `events p99 < 20 ms: ${e.scenario.replace('GET /v1/events ', '')}`, measured: `${ms(e.p99)} ms`, met: e.p99 < 20 });
  }
  checks.push(...endpointTargets(steps));
  checks.push(...refundTargets(steps));
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
    if (cpu.length) out.push('### CPU per answer', '', 'CPU time of each part of the system while the step ran (user + system, all threads, from /proc; bench/lib/cpu.ts), divided by the step\'s 2xx answers; "cores busy" is the total over the step\'s wall time (the machine has ' + run.machine.nproc + '). A step starts once the bench\'s processes are quiet and is metered until they are quiet again, so the work its requests leave behind (a webhook still being delivered) counts in the step itself and slows no later step (bench/lib/cpu.ts, `settle`).' + statementsNote, '', ...cpu, '');
    const codec = codecTable(result.steps);
    if (codec.length) out.push('### Payload codec cost', '', 'The codec cost steps (the same frictionless creates at the same rate, alternating between the API and worker with the codec and a second pair with `TEMPORAL_CODEC=off`), summed per configuration. "Bench processes" is the CPU of everything the bench started (both pairs, Temporal, MariaDB, sandbox, receiver, load generator; not the rest of the machine) per create; "API + worker" that of the pair measured.', '', ...codec, '');
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
