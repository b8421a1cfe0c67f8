// What must never be stored in the clear, and where the suite looks for it afterwards: the card
// numbers and CVCs it sent, and the API keys it was given (which may exist only as hashes).
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

/** A CVC as a JSON string value (escaped or not, as inside a JSON column or a log line), or any `cvc` member. */
function cvcNeedles(): Needle[] {
  const values = usedCvcValues().map((cvc) => {
    const pattern = new RegExp(`\\\\*"${escape(cvc)}\\\\*"`);
    return { label: `CVC value ${'*'.repeat(cvc.length)}`, test: (text: string) => pattern.test(text) };
  });
  const member = /\\*"cvc\\*"\s*:/i;
  return [...values, { label: 'a "cvc" member', test: (text: string) => member.test(text) }];
}

function keyNeedles(): Needle[] {
  return usedApiKeys().map((key) => ({ label: `API key ${key.slice(0, 12)}...${key.slice(-4)}`, test: (text: string) => text.includes(key) }));
}

export function secretNeedles(): Needle[] {
  return [...cardNeedles(), ...cvcNeedles(), ...keyNeedles()];
}

/** Labels of the needles found in the text. */
export function findSecrets(text: string, needles: Needle[]): string[] {
  return needles.filter((needle) => needle.test(text)).map((needle) => needle.label);
}

/** Every file under a directory (recursively), read as latin1 so binary stores can be searched byte for byte. */
export function rawFiles(dir: string): Array<{ file: string; text: string }> {
  if (!fs.existsSync(dir)) return [];
  const found: Array<{ file: string; text: string }> = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...rawFiles(file));
    else if (entry.isFile()) found.push({ file, text: fs.readFileSync(file).toString('latin1') });
  }
  return found;
}

/** Every workflow execution the server knows, closed ones included. */
export async function allExecutions(client: Client): Promise<Array<{ workflowId: string; runId: string }>> {
  const executions: Array<{ workflowId: string; runId: string }> = [];
  for await (const execution of client.workflow.list()) executions.push({ workflowId: execution.workflowId, runId: execution.runId });
  return executions;
}
