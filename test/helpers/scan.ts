// Where card data must never be found (docs/architecture.md, "Card data"): every table of the test
// database, every log file of the test run, and Temporal workflow histories with their payloads
// decrypted; and where personal data must never be found: the histories as the server keeps them.
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import type { DataSource } from 'typeorm';
import { decodeHistory } from '../../src/replay/histories';
import { TEST_LOG_DIR } from './processes';

/** `SELECT *` of every table, keyed by table name. */
export async function dumpDatabase(dataSource: DataSource): Promise<Record<string, Array<Record<string, unknown>>>> {
  const tables: Array<Record<string, string>> = await dataSource.query('SHOW TABLES');
  const dump: Record<string, Array<Record<string, unknown>>> = {};
  for (const row of tables) {
    const table = Object.values(row)[0]!;
    dump[table] = await dataSource.query(`SELECT * FROM \`${table}\``);
  }
  return dump;
}

/** Every log file the test run wrote (API, worker, sandbox, Temporal server). */
export function readLogs(): Record<string, string> {
  const logs: Record<string, string> = {};
  for (const name of fs.readdirSync(TEST_LOG_DIR)) {
    const file = path.join(TEST_LOG_DIR, name);
    if (fs.statSync(file).isFile()) logs[name] = fs.readFileSync(file, 'utf8');
  }
  return logs;
}

/** Text of a value with every byte array (Temporal payload data) decoded as UTF-8. */
export function decodedText(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (member instanceof Uint8Array) return Buffer.from(member).toString('utf8');
    if (member && typeof member === 'object' && (member as { type?: unknown }).type === 'Buffer' && Array.isArray((member as { data?: unknown }).data)) {
      return Buffer.from((member as { data: number[] }).data).toString('utf8');
    }
    if (typeof member === 'bigint') return member.toString();
    return member;
  });
}

const INT64_FIELD = /(Id|Bytes|[vV]ersion|Count|attempt)$/;

/** A history as JSON text, payload `data` (and metadata) base64-decoded to text. */
function historyAsText(history: History): string {
  const json: unknown = JSON.parse(decodedText(history));
  return JSON.stringify(json, (key, member: unknown) => {
    if ((key === 'data' || key === 'encoding' || key === 'type') && typeof member === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(member)) {
      return Buffer.from(member, 'base64').toString('utf8');
    }
    // Temporal's own 64-bit counters (event and task ids, history size, versions) arrive as digit
    // strings; as numbers they cannot pass for a quoted CVC (a history of 7,373 bytes once did).
    if (INT64_FIELD.test(key) && typeof member === 'string' && /^\d+$/.test(member)) return Number(member);
    return member;
  });
}

/**
 * A workflow's history as the server keeps it: payloads base64-decoded but not decrypted, so what
 * anyone who reads histories (`temporal workflow show`, the UI without the codec) could see.
 */
export async function rawHistoryText(client: Client, workflowId: string): Promise<string> {
  return historyAsText(await client.workflow.getHandle(workflowId).fetchHistory());
}

/** A workflow's history with its payloads decrypted by the client's codec, as an operator with the keys reads it. */
export async function historyText(client: Client, workflowId: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return historyAsText(await decodeHistory(history, client.options.loadedDataConverter.payloadCodecs));
}

/** Which of the needles occur in the text (an empty list is the good answer). */
export function occurrences(text: string, needles: readonly string[]): string[] {
  return needles.filter((needle) => text.includes(needle));
}
