// `npm run histories:encrypt -- [dir]` (default test/replay/histories): encrypts every payload of
// the committed histories with the repository's test key (test/replay/codec-test-key.ts), so that a
// set recorded in plaintext is committed as the server would keep it. Payloads already under the
// test key are left as they are, and so is a file with nothing to change: running it twice changes
// nothing.
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { readHistoryFiles, transformHistoryPayloads } from '../src/replay/histories';
import { EncryptionCodec, keyIdOf } from '../src/temporal/codec';
import { TEST_CODEC_KEYS } from '../test/replay/codec-test-key';

async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'test', 'replay', 'histories'));
  const codec = new EncryptionCodec(TEST_CODEC_KEYS);
  let changed = 0;
  for (const { workflowId, history } of readHistoryFiles(dir)) {
    let encrypted = 0;
    await transformHistoryPayloads(history as never, async (payloads) => Promise.all(payloads.map(async (payload) => {
      if (keyIdOf(payload) === TEST_CODEC_KEYS.currentKeyId) return payload;
      encrypted += 1;
      const [plain] = await codec.decode([payload]);
      return codec.encrypt(plain!);
    })));
    if (!encrypted) continue;
    fs.writeFileSync(path.join(dir, `${workflowId}.json`), `${historyToJSON(history as never)}\n`);
    changed += 1;
    process.stdout.write(`  ${workflowId}: ${encrypted} payloads encrypted\n`);
  }
  process.stdout.write(`${changed} histories changed in ${path.relative(process.cwd(), dir) || '.'}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`encrypt failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
