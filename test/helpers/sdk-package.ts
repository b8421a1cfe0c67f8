// The SDK as a merchant gets it: `npm pack` in sdk/ (which builds it), then `npm install` of the
// tarball into a project of its own. Its one dependency comes from the npm cache when it is there.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/config';

const run = promisify(execFile);

export interface InstalledSdk {
  /** The merchant's project, with the SDK in its node_modules. */
  dir: string;
  tarball: string;
  /** The `card-payments` command npm linked. */
  bin: string;
  remove(): void;
}

export async function installPackedSdk(): Promise<InstalledSdk> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merchant-project-'));
  const { stdout } = await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: path.join(PROJECT_ROOT, 'sdk'), maxBuffer: 16 * 1024 * 1024 });
  const tarball = path.join(dir, stdout.trim().split('\n').pop()!);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'merchant-project', private: true }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  return { dir, tarball, bin: path.join(dir, 'node_modules', '.bin', 'card-payments'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
