// Runs the shell commands of a Markdown document the way a reader pastes them: every ```bash block
// in order, in one fresh bash (no environment but what the caller names), and reads back what
// they printed. A block is left out only when the line just before its fence says why:
//   <!-- docs-test: skip (reason) -->
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface DocBlock {
  /** 1-based line of the opening fence. */
  line: number;
  info: string;
  code: string;
  /** The reason of a skip marker, or null when the block runs. */
  skip: string | null;
}

const SKIP_MARKER = /^<!-- docs-test: skip \((.+)\) -->$/;
/** Info strings of shell code: such a block must say `bash`, so that none escapes the run unseen. */
const SHELL_INFO = new Set(['', 'sh', 'shell', 'console', 'zsh', 'bash']);

export function fencedBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const close = lines.indexOf('```', i + 1);
    if (close < 0) throw new Error(`unclosed code block at line ${i + 1}`);
    const info = open[1]!;
    if (SHELL_INFO.has(info) && info !== 'bash') throw new Error(`line ${i + 1}: shell code must be a \`\`\`bash block (found "${info}")`);
    blocks.push({ line: i + 1, info, code: lines.slice(i + 1, close).join('\n'), skip: SKIP_MARKER.exec(lines[i - 1] ?? '')?.[1] ?? null });
    i = close;
  }
  return blocks;
}

/** What a run printed, per block: JSON values (curl answers, admin output) and other lines, in order. */
export type Printed = { json: any } | { text: string };

/** End (exclusive) of the JSON object or array that starts at `from`, or -1. */
function jsonEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** curl prints bodies without a final newline, so answers follow each other on one line. */
export function printedItems(output: string): Printed[] {
  const items: Printed[] = [];
  let i = 0;
  while (i < output.length) {
    if (/\s/.test(output[i]!)) { i += 1; continue; }
    if (output[i] === '{' || output[i] === '[') {
      const end = jsonEnd(output, i);
      if (end > 0) {
        try {
          items.push({ json: JSON.parse(output.slice(i, end)) });
          i = end;
          continue;
        } catch { /* not JSON: read it as a line */ }
      }
    }
    const newline = output.indexOf('\n', i);
    const end = newline < 0 ? output.length : newline;
    items.push({ text: output.slice(i, end).trimEnd() });
    i = end;
  }
  return items;
}

export interface DocRun {
  /** Substituted script as it ran (also written next to the log). */
  script: string;
  /** Everything printed so far on stdout and stderr, in order; background jobs may still add to it. */
  output(): string;
  /** Output of each run block, split by the markers the runner prints between blocks. */
  blocks(): Array<{ block: DocBlock; output: string }>;
  /** Exit status of the shell (null when it had to be killed after `timeoutMs`). */
  exited: Promise<number | null>;
  /** Ends the shell's process group: the shell and any background job the commands started. */
  stop(): void;
}

export interface DocRunOptions {
  cwd: string;
  /** The whole environment of the shell (a reader's fresh shell has PATH and HOME, little else). */
  env: Record<string, string>;
  /** Exact text replacements applied to the commands (e.g. documented ports to free ones). */
  replace: Array<[string, string]>;
  logFile: string;
  /**
   * Where the script itself is kept for a look after a failure. Not next to the service logs: the
   * documented commands hold test card numbers, and the log directory is scanned for them.
   */
  scriptFile: string;
  timeoutMs: number;
}

const MARK = '@@docs-test block at line ';

export function runDocBlocks(blocks: DocBlock[], options: DocRunOptions): DocRun {
  const run = blocks.filter((b) => b.skip === null);
  let script = ['exec 2>&1', 'set -euo pipefail', ...run.flatMap((b) => [`printf '\\n${MARK}%s\\n' ${b.line}`, b.code])].join('\n');
  for (const [from, to] of options.replace) script = script.split(from).join(to);
  fs.writeFileSync(options.scriptFile, `${script}\n`);
  // detached: a process group of its own, so stop() also ends jobs the commands left in the background.
  const child = spawn('bash', ['-c', script], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  let output = '';
  const log = fs.createWriteStream(options.logFile);
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    log.write(chunk);
  });
  const stop = () => {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    log.end();
  };
  const exited = new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => { stop(); resolve(null); }, options.timeoutMs);
    child.once('exit', (code) => { clearTimeout(timer); resolve(code); });
  });
  return {
    script,
    output: () => output,
    blocks: () => output.split(`\n${MARK}`).slice(1).map((part) => {
      const newline = part.indexOf('\n');
      const line = Number(part.slice(0, newline));
      return { block: run.find((b) => b.line === line)!, output: part.slice(newline + 1) };
    }),
    exited,
    stop,
  };
}
