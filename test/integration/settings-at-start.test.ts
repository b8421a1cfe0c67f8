// A bad setting stops every entry point at start, naming the variable, before it has done anything
// (docs/configuration.md). Each runs with only the settings given here, none of the suite's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runToExit } from '../helpers/processes';

let dataDir: string;
beforeAll(() => { dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-')); });
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('an entry point with a bad setting', () => {
  it.each<[string, string, Record<string, string>, string, string[]]>([
    ['the API', 'src/api/main.ts', { DATABASE_POOL_SIZE: 'x' }, 'DATABASE_POOL_SIZE must be an integer from 1 to 1000', []],
    ['the worker', 'workers/main.ts', { WORKER_MAX_CACHED_WORKFLOWS: 'abc' }, 'WORKER_MAX_CACHED_WORKFLOWS must be an integer, at least 0', []],
    ['the admin command', 'src/admin/cli.ts', { TRUST_PROXY: 'maybe' }, 'TRUST_PROXY must be one of 1, true, yes, on / 0, false, no, off', ['merchant', 'list']],
    ['the codec server', 'scripts/codec-server.ts', { CODEC_PORT: '99999' }, 'CODEC_PORT must be a port number (0 to 65535)', []],
    ['the sandbox', 'src/provider/sandbox/main.ts', { SANDBOX_PORT: 'abc' }, 'SANDBOX_PORT must be a port number (0 to 65535)', []],
    ['npm start, for the sandbox it would run', 'scripts/dev.ts', { SANDBOX_SETTLE_MS: 'slow' }, 'SANDBOX_SETTLE_MS must be an integer from 0 to 86400000', []],
  ])('%s refuses to start, naming the variable', async (_label, entry, env, refusal, args) => {
    // Ports nobody listens on: a process that got past its settings could not reach anything.
    const { code, output } = await runToExit(entry, { DATA_DIR: dataDir, TEMPORAL_ADDRESS: '127.0.0.1:1', PORT: '0', ...env }, args);
    expect({ code, refused: output.includes(`invalid settings: ${refusal}`) }).toEqual({ code: 1, refused: true });
    // Nothing was started or written: no database, no Temporal store.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});
