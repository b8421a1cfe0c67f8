// TEST ONLY. The key ring the committed histories (test/replay/histories) are encrypted with, and
// the one the integration suite's clients and workers use, so that the histories it records can be
// committed as they are. It is published here for that purpose and nothing else: its key is one
// byte repeated, which every process refuses with NODE_ENV=production (docs/configuration.md).
import type { CodecKeyRing } from '../../src/config';

export const TEST_CODEC_KEY_ID = 'test-histories';

export const TEST_CODEC_KEYS: CodecKeyRing = {
  currentKeyId: TEST_CODEC_KEY_ID,
  keys: { [TEST_CODEC_KEY_ID]: '7e'.repeat(32) },
};

/** The same ring as `TEMPORAL_CODEC_KEYS` / `TEMPORAL_CODEC_KEY_ID` values, for processes the tests spawn. */
export const TEST_CODEC_ENV = {
  TEMPORAL_CODEC_KEYS: Object.entries(TEST_CODEC_KEYS.keys).map(([id, hex]) => `${id}:${hex}`).join(','),
  TEMPORAL_CODEC_KEY_ID: TEST_CODEC_KEYS.currentKeyId,
};
