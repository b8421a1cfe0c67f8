// bench/results/ keeps only the runs the report cites: the run REPORT.md is rendered from and every
// result file its notes name. Each citation must name an existing file exactly (no `s9-tcp-*`), and
// the committed report must carry the current notes (re-render it after editing NOTES.md).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const BENCH = path.join(ROOT, 'bench');
const RESULTS = path.join(BENCH, 'results');

/** Every `results/<name>` a text cites; a name may end in `*` or `-` (a prefix), which the test refuses. */
function citedResults(text: string): string[] {
  const names = [...text.matchAll(/results\/([A-Za-z0-9_*-]+(?:\.[A-Za-z0-9]+)*)/g)].map((m) => m[1]!);
  return [...new Set(names)].sort();
}

/** The run a report says it was rendered from (`label \`x\``), as a results file name. */
function reportRun(report: string): string | null {
  const match = /label `([^`]+)`/.exec(report);
  return match ? `${match[1]}.json` : null;
}

/** Files in bench/results/ that git keeps or would add (ignored smoke-run output aside). */
function resultFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '.'], { cwd: RESULTS, encoding: 'utf8' });
  return out.split('\n').filter((name) => name !== '' && fs.existsSync(path.join(RESULTS, name))).sort();
}

describe('citedResults', () => {
  it('finds exact names, prefixes and names at the end of a sentence', () => {
    const text = 'see `bench/results/full-s12b.json`, results/s9-tcp-*.json and bench/results/ab.md. Also results/s8-before-1.json, `-2`';
    expect(citedResults(text)).toEqual(['ab.md', 'full-s12b.json', 's8-before-1.json', 's9-tcp-*.json']);
  });

  it('reads the run a report names', () => {
    expect(reportRun('commit `8caeaf0`, label `full-s12b`.')).toBe('full-s12b.json');
    expect(reportRun('no label here')).toBeNull();
  });
});

describe('bench/results and the report', () => {
  const report = fs.readFileSync(path.join(BENCH, 'REPORT.md'), 'utf8');
  const notes = fs.readFileSync(path.join(BENCH, 'NOTES.md'), 'utf8');
  const run = reportRun(report);
  const cited = new Set([...citedResults(report), ...citedResults(notes), ...(run ? [run] : [])]);

  it('names the run the report is rendered from, and keeps it', () => {
    expect(run).not.toBeNull();
    expect(fs.existsSync(path.join(RESULTS, run!))).toBe(true);
  });

  it('cites result files by their exact names', () => {
    expect([...cited].filter((name) => name.includes('*') || name.endsWith('-'))).toEqual([]);
  });

  it('cites only files that exist', () => {
    expect([...cited].filter((name) => !fs.existsSync(path.join(RESULTS, name)))).toEqual([]);
  });

  it('keeps only files the report cites', () => {
    expect(resultFiles().filter((name) => !cited.has(name))).toEqual([]);
  });

  it('carries the current notes (re-render with bench/render.ts after editing them)', () => {
    expect(report.endsWith(`${notes.trim()}\n`)).toBe(true);
  });
});
