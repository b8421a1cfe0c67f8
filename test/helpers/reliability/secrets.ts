// What must never be stored in the clear, and where the suite looks for it afterwards: the card
// numbers and CVCs it sent, the API keys it was given (which may exist only as hashes), the webhook
// signing secrets it was shown (which may exist only sealed), and the
// personal data its workload sends, which Temporal may hold only encrypted.
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { usedCardNumbers, usedCvcValues } from './cards';

const apiKeys = new Set<string>();

export function rememberApiKeys(...keys: string[]): void {
  for (const key of keys) apiKeys.add(key);
}

export function usedApiKeys(): string[] {
  return [...apiKeys];
}

const webhookSecrets = new Set<string>();

/** `whsec_` secrets the suite was shown (a merchant's, an endpoint's). */
export function rememberWebhookSecrets(...secrets: string[]): void {
  for (const secret of secrets) webhookSecrets.add(secret);
}

/**
 * Distinctive personal data in every create of the workload (workload.ts): cardholder, billing and
 * recipient names, an e-mail, IP addresses, a description and a refund reason. None may be in
 * Temporal's store or its histories as stored; decrypted, the histories hold them.
 */
export const PERSONAL_DATA = {
  holderName: 'Ysolde Reliabilis',
  billingEmail: 'ysolde.reliabilis@example.org',
  billingLastName: 'Reliabilis-Moreau',
  customerIp: '198.51.100.201',
  hostedCustomerIp: '198.51.100.202',
  description: 'Reliability order for Ysolde',
  hostedCardholder: 'Ottoline Reliabova',
  recipientFirstName: 'Casimir',
  recipientLastName: 'Reliabovic',
  payoutIp: '198.51.100.203',
  refundReason: 'Returned to Reliabilis',
} as const;

export interface Needle {
  label: string;
  /** Whether it occurs in the text. */
  test(text: string): boolean;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Card numbers as sent and as shoppers group them; labelled by their last four digits only. */
function cardNeedles(): Needle[] {
  return usedCardNumbers().flatMap((number) => {
    const grouped = number.match(/.{1,4}/g)!;
    const variants = [number, grouped.join(' '), grouped.join('-')];
    return [{ label: `card ...${number.slice(-4)}`, test: (text: string) => variants.some((v) => text.includes(v)) }];
  });
}

/**
 * A CVC as a JSON string value (escaped or not, as inside a JSON column or a log line), or any
 * `cvc` member. Not the id of a Temporal schedule's local activity (`"ActivityID":"737"` in its
 * markers), a counter that reaches a CVC's digits in a long run.
 */
function cvcNeedles(): Needle[] {
  const values = usedCvcValues().map((cvc) => {
    const pattern = new RegExp(`(?<!\\\\*"ActivityID\\\\*"\\s*:\\s*\\\\*)\\\\*"${escape(cvc)}\\\\*"`);
    return { label: `CVC value ${'*'.repeat(cvc.length)}`, test: (text: string) => pattern.test(text) };
  });
  const member = /\\*"cvc\\*"\s*:/i;
  return [...values, { label: 'a "cvc" member', test: (text: string) => member.test(text) }];
}

function keyNeedles(): Needle[] {
  return usedApiKeys().map((key) => ({ label: `API key ${key.slice(0, 12)}...${key.slice(-4)}`, test: (text: string) => text.includes(key) }));
}

export function personalNeedles(): Needle[] {
  return Object.entries(PERSONAL_DATA).map(([field, value]) => ({ label: `personal data (${field})`, test: (text: string) => text.includes(value) }));
}

/** The secret's key material (the base64 after `whsec_`), however it is quoted; labelled by number only. */
function webhookSecretNeedles(): Needle[] {
  return [...webhookSecrets].map((secret, n) => ({ label: `webhook secret #${n + 1}`, test: (text: string) => text.includes(secret.slice('whsec_'.length)) }));
}

export function secretNeedles(): Needle[] {
  return [...cardNeedles(), ...cvcNeedles(), ...keyNeedles(), ...webhookSecretNeedles()];
}

/** Labels of the needles found in the text. */
export function findSecrets(text: string, needles: Needle[]): string[] {
  return needles.filter((needle) => needle.test(text)).map((needle) => needle.label);
}

export interface Scan {
  place: string;
  /** What was read: rows, files, workflows. */
  objects: number;
  /** `<needle> in <where>` for every find. */
  hits: string[];
}

export function scanTexts(place: string, texts: Array<[string, string]>, needles: Needle[]): Scan {
  const hits = texts.flatMap(([name, text]) => findSecrets(text, needles).map((label) => `${label} in ${name}`));
  return { place, objects: texts.length, hits };
}

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(file) : entry.isFile() ? [file] : [];
  });
}

/** Every file under a directory, read one at a time as latin1, so binary stores are searched byte for byte. */
export function scanRawFiles(place: string, dir: string, needles: Needle[], mustContain?: string): Scan & { sawCanary: boolean } {
  const scan: Scan & { sawCanary: boolean } = { place, objects: 0, hits: [], sawCanary: mustContain === undefined };
  for (const file of filesUnder(dir)) {
    const bytes = readIfStillThere(file);
    // A store still running deletes files between the listing and the read: SQLite's rollback
    // journal ends with its transaction, and holds only pages the database file held before it.
    if (!bytes) continue;
    const text = bytes.toString('latin1');
    scan.objects += 1;
    scan.hits.push(...findSecrets(text, needles).map((label) => `${label} in ${file}`));
    if (mustContain !== undefined && text.includes(mustContain)) scan.sawCanary = true;
  }
  return scan;
}

function readIfStillThere(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Every workflow execution the server knows, closed ones included. */
export async function allExecutions(client: Client): Promise<Array<{ workflowId: string; runId: string }>> {
  const executions: Array<{ workflowId: string; runId: string }> = [];
  for await (const execution of client.workflow.list()) executions.push({ workflowId: execution.workflowId, runId: execution.runId });
  return executions;
}
