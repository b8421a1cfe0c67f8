// The figures of a run: one table row per fault or input (count tried, objects, lost, duplicated,
// wrong, the command that reproduces it) plus free-form measurements. Written under the log
// directory after every run; with RELIABILITY_WRITE_DOCS=1 a complete run also refreshes the
// table of its mode in docs/reliability.md.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/config';
import { LONG_MODE, MODE, RELIABILITY_LOG_DIR } from './config';

export interface FigureRow {
  section: string;
  fault: string;
  tried: number;
  objects: number;
  lost: number;
  duplicated: number;
  wrong: number;
}

const rows: FigureRow[] = [];
const measurements: Array<{ section: string; text: string }> = [];
const sectionsDone = new Set<string>();

export function recordFigure(row: FigureRow): void {
  rows.push(row);
}

export function recordMeasurement(section: string, text: string): void {
  measurements.push({ section, text });
}

/** A section calls this when all its rows are in, so partial runs never overwrite the docs. */
export function sectionDone(section: string): void {
  sectionsDone.add(section);
}

/** The command that runs one section again, in the current mode. */
export function commandFor(section: string): string {
  return `${LONG_MODE ? 'RELIABILITY_LONG=1 ' : ''}npm run test:reliability -- -t '${section}'`;
}

export function figuresTable(): string {
  const lines = [
    '| Fault or input | Count tried | Objects | Lost | Duplicated | Wrong | Reproduce |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.section}: ${r.fault} | ${r.tried} | ${r.objects} | ${r.lost} | ${r.duplicated} | ${r.wrong} | \`${commandFor(r.section)}\` |`),
  ];
  return lines.join('\n');
}

export function measurementList(): string {
  return measurements.map((m) => `- ${m.section}: ${m.text}`).join('\n');
}

function renderRun(startedAt: Date, seconds: number): string {
  return [
    `Mode **${MODE}**, run ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${Math.round(seconds)} s on this machine (2 shared cores).`,
    '',
    figuresTable(),
    '',
    measurementList(),
  ].join('\n');
}

/** Writes figures-<mode>.md/.json; refreshes docs/reliability.md when asked and every section ran. */
export function writeFigures(startedAt: Date, expectedSections: string[]): void {
  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const rendered = renderRun(startedAt, seconds);
  fs.mkdirSync(RELIABILITY_LOG_DIR, { recursive: true });
  fs.writeFileSync(path.join(RELIABILITY_LOG_DIR, `figures-${MODE}.md`), `${rendered}\n`);
  fs.writeFileSync(path.join(RELIABILITY_LOG_DIR, `figures-${MODE}.json`), JSON.stringify({ mode: MODE, startedAt, seconds, rows, measurements }, null, 2));
  if (process.env.RELIABILITY_WRITE_DOCS !== '1') return;
  const missing = expectedSections.filter((s) => !sectionsDone.has(s));
  if (missing.length) {
    console.warn(`docs/reliability.md not updated: sections not completed: ${missing.join(', ')}`);
    return;
  }
  const docs = path.join(PROJECT_ROOT, 'docs', 'reliability.md');
  const start = `<!-- figures:${MODE}:start -->`;
  const end = `<!-- figures:${MODE}:end -->`;
  const text = fs.readFileSync(docs, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/reliability.md lacks the ${start} ... ${end} markers`);
  fs.writeFileSync(docs, `${text.slice(0, from + start.length)}\n${rendered}\n${text.slice(to)}`);
}
