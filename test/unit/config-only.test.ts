// Settings are read in src/config.ts, and the sandbox acquirer's in its own declarations
// (src/provider/sandbox/config.ts), only: no other module of the service's processes (src/,
// contracts/, workflows/, activities/, workers/, scripts/) reads the environment. The tooling that
// starts processes rather than being one (scripts/topology, scripts/lib: the compose topology and
// the Go-built servers, as bench/ does) hands the environment on, and is outside the rule.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../../src/config';

const FOLDERS = ['src', 'contracts', 'workflows', 'activities', 'workers', 'scripts'];
const CONFIG = path.join('src', 'config.ts');
const SANDBOX_CONFIG = path.join('src', 'provider', 'sandbox', 'config.ts');
const LAUNCHERS = [path.join('scripts', 'topology'), path.join('scripts', 'lib')];

/** `process.env`, `process['env']` and `const { env } = process`, however spaced. */
function readsEnvironment(source: string): boolean {
  return /\bprocess\s*(\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/.test(source);
}

function sources(folder: string): string[] {
  return fs.readdirSync(path.join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|js|cjs|mjs)$/.test(file))
    .map((file) => path.join(folder, file))
    .filter((file) => !LAUNCHERS.some((launcher) => file.startsWith(`${launcher}${path.sep}`)));
}

describe('reading the environment', () => {
  it('is recognized in every spelling', () => {
    for (const source of ['process.env.PORT', "process['env'].PORT", 'process . env', 'const { env, argv } = process;']) {
      expect({ source, reads: readsEnvironment(source) }).toEqual({ source, reads: true });
    }
    for (const source of ['config().port', 'const environment = 1;', 'process.argv', '// see src/config.ts for the environment']) {
      expect({ source, reads: readsEnvironment(source) }).toEqual({ source, reads: false });
    }
  });

  it('happens in src/config.ts and the sandbox\'s settings only', () => {
    const files = FOLDERS.flatMap(sources);
    expect(files).toEqual(expect.arrayContaining([CONFIG, SANDBOX_CONFIG]));
    const readers = files.filter((file) => readsEnvironment(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
    expect(readers.sort()).toEqual([CONFIG, SANDBOX_CONFIG].sort());
  });
});
