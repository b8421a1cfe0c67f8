// docs/configuration.md lists every setting as declared: `npm run docs:config` writes its tables from
// the declarations, and this fails when the file and the declarations differ.
import fs from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { SETTINGS, declarations, settingInfo } from '../../src/config';
import { SANDBOX_SETTINGS } from '../../src/provider/sandbox/config';
import { CONFIGURATION_DOC, withSettingsTables } from '../../scripts/config-docs';

describe('docs/configuration.md', () => {
  const doc = fs.readFileSync(CONFIGURATION_DOC, 'utf8');

  it('holds the settings tables as the declarations write them (npm run docs:config)', () => {
    expect(doc).toBe(withSettingsTables(doc));
  });

  it('has a row for every declared variable, once', () => {
    for (const setting of new Set([...declarations(SETTINGS), ...declarations(SANDBOX_SETTINGS)])) {
      const { env } = settingInfo(setting);
      expect({ env, rows: doc.split('\n').filter((line) => line.startsWith(`| \`${env}\` |`)).length }).toEqual({ env, rows: 1 });
    }
  });

  it('would show a changed declaration', () => {
    const stale = doc.replace('| `PORT` | port | `3000` |', '| `PORT` | port | `8080` |');
    expect(stale).not.toBe(doc);
    expect(withSettingsTables(stale)).toBe(doc);
  });
});
