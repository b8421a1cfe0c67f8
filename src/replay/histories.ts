// History replay for QA: replays workflow histories (files, or runs fetched from a Temporal
// server) against the current workflow code and reports nondeterminism per workflow.
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';

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

export async function replayHistories(bundle: WorkflowBundleWithSourceMap, histories: HistoryFile[]): Promise<ReplayOutcome[]> {
  const outcomes: ReplayOutcome[] = [];
  const results = Worker.runReplayHistories({ workflowBundle: bundle, replayName: 'qa-replay' }, histories.map((h) => ({ workflowId: h.workflowId, history: h.history as never })));
  for await (const result of results) {
    outcomes.push({ workflowId: result.workflowId, ok: !result.error, error: result.error ? `${result.error.name}: ${result.error.message}` : undefined });
  }
  return outcomes;
}

/** Writes each history as `<dir>/<name>.json` in the same JSON the Temporal CLI and UI export. */
export async function exportHistories(client: Client, query: string, dir: string, name: (workflowId: string, type: string) => string = (id) => id): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for await (const execution of client.workflow.list({ query })) {
    const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
    const history = await handle.fetchHistory();
    const file = path.join(dir, `${name(execution.workflowId, execution.type)}.json`);
    fs.writeFileSync(file, `${historyToJSON(history)}\n`);
    written.push(file);
  }
  return written;
}
