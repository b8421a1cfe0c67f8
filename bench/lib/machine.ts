// What the figures were measured on: CPU, memory, load, versions.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export interface Machine {
  nproc: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  node: string;
  commit: string;
}

export function machine(): Machine {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  return {
    nproc: os.availableParallelism(),
    cpuModel: model.trim(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    commit,
  };
}

export function loadAverage(): [number, number, number] {
  const [a, b, c] = os.loadavg();
  return [a!, b!, c!];
}
