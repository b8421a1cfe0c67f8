// History replay for QA: replays workflow histories (files, or runs fetched from a Temporal
// server) against the current workflow code and reports nondeterminism per workflow. Histories hold
// encrypted payloads, as the server keeps them: replay decodes them with the configured key ring.
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { decode, visit, walkGetWorkflowExecutionHistoryResponse } from '@temporalio/common/lib/internal-non-workflow';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { CodecKeyRing } from '../config';
import { temporalDataConverter } from '../temporal/codec';

export interface HistoryFile {
  workflowId: string;
  history: unknown;
}

export interface ReplayOutcome {
  workflowId: string;
  ok: boolean;
  error?: string;
}

/** Reads `*.json` histories (as written by `temporal workflow show --output json` or histories:export). */
export function readHistoryFiles(target: string): HistoryFile[] {
  const files = fs.statSync(target).isDirectory()
    ? fs.readdirSync(target).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(target, f))
    : [target];
  return files.map((file) => ({ workflowId: path.basename(file, '.json'), history: historyFromJSON(JSON.parse(fs.readFileSync(file, 'utf8'))) }));
}

export async function fetchHistories(client: Client, query: string): Promise<HistoryFile[]> {
  const out: HistoryFile[] = [];
  for await (const execution of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    out.push({ workflowId: execution.workflowId, history });
  }
  return out;
}

/** Replays with the workers' data converter: `keys` must hold every key the histories were encrypted with. */
export async function replayHistories(bundle: WorkflowBundleWithSourceMap, histories: HistoryFile[], keys: CodecKeyRing | null): Promise<ReplayOutcome[]> {
  const outcomes: ReplayOutcome[] = [];
  const results = Worker.runReplayHistories(
    // Without the workers' failure converter: replay runs no activities, and it would only encrypt
    // the reason an activation could not be decoded (a key missing from the ring).
    { workflowBundle: bundle, replayName: 'qa-replay', dataConverter: { ...temporalDataConverter(keys), failureConverterPath: undefined } },
    histories.map((h) => ({ workflowId: h.workflowId, history: h.history as never })),
  );
  for await (const result of results) {
    outcomes.push({ workflowId: result.workflowId, ok: !result.error, error: result.error ? `${result.error.name}: ${result.error.message}` : undefined });
  }
  return outcomes;
}

/** Writes each history as `<dir>/<name>.json` in the same JSON the Temporal CLI and UI export. */
export async function exportHistories(
  client: Client, query: string, dir: string, name: (workflowId: string, type: string, runId: string) => string = (id) => id,
): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for await (const execution of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
    const history = await handle.fetchHistory();
    const file = path.join(dir, `${name(execution.workflowId, execution.type, execution.runId)}.json`);
    fs.writeFileSync(file, `${historyToJSON(history)}\n`);
    written.push(file);
  }
  return written;
}

/**
 * Runs every payload of a history that the SDK passes through its codec (inputs, results, update,
 * signal and query payloads, memos, summaries, failure details; not search attributes or headers)
 * through `transform`, in place.
 */
export async function transformHistoryPayloads(history: History, transform: (payloads: Payload[]) => Promise<Payload[]>): Promise<void> {
  // A marker's details other than its `result` (a local activity's sequence number, type and times)
  // are written and read back by the SDK's core itself, in plaintext: they never pass the codec.
  const markers = (history.events ?? []).flatMap((event) => {
    const attributes = event.markerRecordedEventAttributes;
    return attributes?.details ? [{ attributes, details: attributes.details }] : [];
  });
  for (const { attributes, details } of markers) attributes.details = 'result' in details ? { result: details.result! } : {};
  try {
    await visit({ history }, walkGetWorkflowExecutionHistoryResponse, {
      transformPayload: async (payload) => (await transform([payload]))[0]!,
      transformPayloads: transform,
      skipHeaders: true,
      skipSearchAttributes: true,
    });
  } finally {
    for (const { attributes, details } of markers) {
      attributes.details = Object.fromEntries(Object.keys(details).map((key) => [key, key === 'result' ? attributes.details!.result! : details[key]!]));
    }
  }
}

/** Every codec payload of a history, as stored. */
export async function historyPayloads(history: History): Promise<Payload[]> {
  const payloads: Payload[] = [];
  await transformHistoryPayloads(history, async (batch) => { payloads.push(...batch); return batch; });
  return payloads;
}

/** A copy of the history with its payloads decoded (decrypted) by the codecs (a client's or worker's). */
export async function decodeHistory(history: History, codecs: PayloadCodec[]): Promise<History> {
  const copy = historyFromJSON(JSON.parse(historyToJSON(history)));
  await transformHistoryPayloads(copy, (payloads) => decode(codecs, payloads));
  return copy;
}
