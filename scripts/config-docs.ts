// `npm run docs:config`: writes the settings tables of docs/configuration.md from their declarations
// (src/config.ts, src/provider/sandbox/config.ts), between the markers that enclose each table.
// test/unit/config-docs.test.ts fails when the file differs from what this writes.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, SETTINGS, declarations, settingInfo, settingsTable } from '../src/config';
import { SANDBOX_SETTINGS } from '../src/provider/sandbox/config';

export const CONFIGURATION_DOC = path.join(PROJECT_ROOT, 'docs', 'configuration.md');

function sandboxTable(): string {
  const service = new Set(declarations(SETTINGS));
  const [shared, own] = [true, false].map((s) => declarations(SANDBOX_SETTINGS).filter((d) => service.has(d) === s));
  const names = shared!.map((d) => `\`${settingInfo(d).env}\``).join(' and ');
  return `${settingsTable(own!)}\n\nIt also reads ${names}, declared with the service's settings above.`;
}

const TABLES: Record<string, () => string> = {
  service: () => settingsTable(declarations(SETTINGS)),
  sandbox: sandboxTable,
};

/** The document with each table between its markers written anew. */
export function withSettingsTables(doc: string): string {
  return Object.entries(TABLES).reduce((text, [name, table]) => {
    const begin = `<!-- settings:${name} (written by npm run docs:config) -->`;
    const end = `<!-- /settings:${name} -->`;
    const from = text.indexOf(begin);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/configuration.md lacks the markers ${begin} ... ${end}`);
    return `${text.slice(0, from + begin.length)}\n${table()}\n${text.slice(to)}`;
  }, doc);
}

if (require.main === module) {
  const doc = fs.readFileSync(CONFIGURATION_DOC, 'utf8');
  const written = withSettingsTables(doc);
  fs.writeFileSync(CONFIGURATION_DOC, written);
  process.stdout.write(written === doc ? 'docs/configuration.md: settings tables unchanged\n' : 'docs/configuration.md: settings tables written\n');
}
