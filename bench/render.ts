// Renders a report again from a run's raw results, e.g. after editing bench/NOTES.md:
//   npx tsx bench/render.ts bench/results/<label>.json [out.md]
// (default out: bench/REPORT.md for a full run, bench/REPORT.short.md for a short one).
import fs from 'node:fs';
import path from 'node:path';
import { writeReport, type RunRecord } from './report';

const [input, output] = process.argv.slice(2);
if (!input) throw new Error('usage: tsx bench/render.ts bench/results/<label>.json [out.md]');
const run = JSON.parse(fs.readFileSync(input, 'utf8')) as RunRecord;
const out = output ?? path.join(__dirname, run.mode === 'full' ? 'REPORT.md' : 'REPORT.short.md');
writeReport(out, run, path.join(__dirname, 'NOTES.md'));
console.log(`wrote ${out}`);
