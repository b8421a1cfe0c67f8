// Talking to the sandbox acquirer from tests: provider-side records, fault injection, and the 3D
// Secure pages completed by plain HTTP, as a browser without JavaScript would.
import { TEST_ENV } from './test-env';

export const SANDBOX_URL = `http://127.0.0.1:${TEST_ENV.sandboxPort}`;

/** A call to the sandbox with the bearer token its control endpoints (`/_sandbox/...`) want. */
export function sandboxControl(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${SANDBOX_URL}${path}`, { ...init, headers: { ...init.headers as Record<string, string>, Authorization: `Bearer ${TEST_ENV.sandboxControlToken}` } });
}

export interface SandboxRecords {
  authorizations: Array<{ idempotency_key: string; id: string; reference: string; status: string; amount: number; currency: string; card_last4: string }>;
  refunds: unknown[];
  payouts: unknown[];
}

/** What the acquirer recorded for one reference (a payment id). */
export async function sandboxRecords(reference: string): Promise<SandboxRecords> {
  const res = await sandboxControl(`/_sandbox/records?reference=${encodeURIComponent(reference)}`);
  if (res.status !== 200) throw new Error(`sandbox records answered ${res.status}`);
  return (await res.json()) as SandboxRecords;
}

export async function setSandboxFaults(faults: Record<string, unknown>): Promise<void> {
  const res = await sandboxControl('/_sandbox/faults', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(faults) });
  if (res.status !== 200) throw new Error(`sandbox faults answered ${res.status}`);
}

export async function clearSandboxFaults(): Promise<void> {
  await sandboxControl('/_sandbox/faults', { method: 'DELETE' });
}

export interface PageAnswer {
  status: number;
  location: string | null;
  text: string;
}

async function page(url: string, init: RequestInit = {}): Promise<PageAnswer> {
  const res = await fetch(url, { ...init, redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** Loads a 3DS page the way the shopper's browser would. */
export function openPage(url: string): Promise<PageAnswer> {
  return page(url);
}

/** Submits the 3DS form (`authenticate`, `fail` or the device step's `continue`) to its own URL. */
export function submitOutcome(url: string, outcome: string): Promise<PageAnswer> {
  return page(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ outcome }).toString() });
}

/** Follows one redirect hop without going further. */
export function follow(location: string, base?: string): Promise<PageAnswer> {
  return page(new URL(location, base).toString());
}
