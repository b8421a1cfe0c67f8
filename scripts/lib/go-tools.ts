// Go programs built from the Go module proxy on first use, into a cache outside the clone
// (~/.cache/payments-service/<name>), as scripts/temporal-cli.sh does for the Temporal CLI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function go(): string {
  for (const candidate of [process.env.GO, '/usr/local/go/bin/go']) if (candidate && fs.existsSync(candidate)) return candidate;
  return 'go';
}

export function toolCacheDir(name: string): string {
  return path.join(os.homedir(), '.cache', 'payments-service', name);
}

/**
 * `go install` of `packages` into `cacheDir` unless every binary in `binaries` is already there;
 * returns their paths. The build log is kept next to them.
 */
export function goInstall(cacheDir: string, packages: string[], binaries: string[], log: (line: string) => void): string[] {
  const paths = binaries.map((binary) => path.join(cacheDir, binary));
  if (paths.every((p) => fs.existsSync(p))) return paths;
  fs.mkdirSync(cacheDir, { recursive: true });
  log(`building ${packages.join(', ')} into ${cacheDir} (first run only)`);
  const build = spawnSync(go(), ['install', ...packages], { env: { ...process.env, GOBIN: cacheDir, GOFLAGS: '-mod=mod' }, encoding: 'utf8' });
  fs.writeFileSync(path.join(cacheDir, 'build.log'), `${build.stdout ?? ''}\n${build.stderr ?? ''}`);
  if (build.status !== 0) throw new Error(`go install failed (see ${path.join(cacheDir, 'build.log')}): ${(build.stderr ?? String(build.error)).trim().split('\n').pop()}`);
  return paths;
}
