// The periodic chores' contract: one small workflow type per chore, started by a Temporal Schedule
// once per cluster (src/temporal/chore-schedules.ts). Each run's result holds its counts, so the
// Temporal UI shows what every run did.
import type { WorkflowType } from './workflow-type';

export interface PurgeResult {
  /** Rows deleted (events: with their deliveries and attempts counted once per event). */
  deleted: number;
}

export interface EventPurgeInput {
  retentionDays: number;
}

export interface CvcSweepInput {
  /** A CVC sealed longer ago than this can serve no authorization (cvcMaxAgeSeconds). */
  maxAgeSeconds: number;
}

export interface CvcSweepResult {
  forgotten: number;
  /** Where this run started reading (Unix seconds): the previous run's cutoff, or 0. */
  since: number;
  /** CVCs sealed before this (Unix seconds) are forgotten; the next run starts from it. */
  cutoff: number;
}

export type IdempotencyPurgeWorkflowFn = () => Promise<PurgeResult>;
export type EventPurgeWorkflowFn = (input: EventPurgeInput) => Promise<PurgeResult>;
export type CvcSweepWorkflowFn = (input: CvcSweepInput) => Promise<CvcSweepResult>;

export const idempotencyPurgeWorkflow: WorkflowType<IdempotencyPurgeWorkflowFn> = { name: 'IdempotencyPurgeWorkflow' };
export const eventPurgeWorkflow: WorkflowType<EventPurgeWorkflowFn> = { name: 'EventPurgeWorkflow' };
export const cvcSweepWorkflow: WorkflowType<CvcSweepWorkflowFn> = { name: 'CvcSweepWorkflow' };
