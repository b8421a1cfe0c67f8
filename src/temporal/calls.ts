// Calls into workflows, through their contracts (contracts/): the update, signal and query
// definitions carry argument and result types, and a workflow type carries its function's, so a
// renamed update or a changed result fails to compile here instead of at run time. Synchronous
// calls from the API run under a deadline; what Temporal throws is turned into catalogue errors here
// and nowhere else.
import {
  WithStartWorkflowOperation, WorkflowContinuedAsNewError, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client, type WorkflowHandle, type WorkflowStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, type TypedSearchAttributes, type UpdateDefinition, type Workflow } from '@temporalio/common';
import { TRY_AGAIN_SHORTLY } from '../../contracts/payment';
import type { WorkflowType } from '../../contracts/workflow-type';
import { ApiError, ERROR_CATALOGUE, type ErrorCode } from '../domain/errors';

export class WorkflowClosedError extends Error {}

function mapTemporalError(error: unknown): never {
  if (error instanceof ApiError) throw error;
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    const type = error.cause.type ?? '';
    if (type in ERROR_CATALOGUE) throw new ApiError(type as ErrorCode);
  }
  if (error instanceof WorkflowExecutionAlreadyStartedError) throw new WorkflowClosedError(error.message);
  if (error instanceof WorkflowNotFoundError) throw new WorkflowClosedError(error.message);
  // Deadline, cancellation, an unreachable server, or an update the workflow could not take:
  // the outcome is unknown, so the client retries with the same Idempotency-Key.
  throw new ApiError('service_unavailable');
}

async function withDeadline<T>(client: Client, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + timeoutMs, fn);
  } catch (error) {
    return mapTemporalError(error);
  }
}

export interface StartSpec<F extends Workflow> {
  workflow: WorkflowType<F>;
  workflowId: string;
  taskQueue: string;
  args: Parameters<F>;
  searchAttributes: TypedSearchAttributes;
  /** One line for operators: shown as the workflow's summary in the Temporal UI and kept in its memo. */
  summary: string;
}

/** Update-with-Start: starts the workflow if it is not running, then waits for the update. */
export async function executeUpdateWithStart<F extends Workflow, Ret, Args extends unknown[]>(
  client: Client, timeoutMs: number, update: UpdateDefinition<Ret, Args>, start: StartSpec<F>, ...args: Args
): Promise<Ret> {
  // Typed by the signature above; TypeScript cannot resolve the SDK's conditional argument type for a generic F.
  const startWorkflowOperation = new WithStartWorkflowOperation<Workflow>(start.workflow.name, {
    workflowId: start.workflowId,
    taskQueue: start.taskQueue,
    args: start.args as unknown[],
    workflowIdConflictPolicy: 'USE_EXISTING',
    // A closed run is only ever one that never registered its object (callers check the read model
    // first on retries), so a retry may start the id afresh.
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    typedSearchAttributes: start.searchAttributes,
    memo: { summary: start.summary },
    staticSummary: start.summary,
  });
  return withDeadline(client, timeoutMs, () => client.workflow.executeUpdateWithStart(update, { args, startWorkflowOperation }));
}

/**
 * An update of a running workflow, answered under the deadline. A workflow that is about to continue
 * as new rejects it with TRY_AGAIN_SHORTLY (nothing taken) and its run id: the update goes again
 * once that run has ended, and reaches the next run. The wait is one long poll of the run's close,
 * not a workflow task: updates sent again and again were each a task of the same workflow, queued
 * with the tasks the run needed to end.
 */
export async function executeUpdate<Ret, Args extends unknown[]>(
  client: Client, timeoutMs: number, workflowId: string, update: UpdateDefinition<Ret, Args>, ...args: Args
): Promise<Ret> {
  const handle = client.workflow.getHandle(workflowId);
  // Typed by the signature above; the SDK's overloads cannot take a generic argument list.
  const call = update as unknown as UpdateDefinition<Ret, [unknown, ...unknown[]]>;
  return withDeadline(client, timeoutMs, async () => {
    for (;;) {
      try {
        return await handle.executeUpdate(call, { args: args as unknown as [unknown, ...unknown[]] });
      } catch (error) {
        const endingRun = tryAgainAfterRun(error);
        if (endingRun === null) throw error;
        await untilRunEnds(client, workflowId, endingRun);
      }
    }
  });
}

/** The run a TRY_AGAIN_SHORTLY rejection came from; null for any other error. */
function tryAgainAfterRun(error: unknown): string | null {
  if (!(error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure && error.cause.type === TRY_AGAIN_SHORTLY)) return null;
  const [runId] = error.cause.details ?? [];
  return typeof runId === 'string' ? runId : '';
}

/** Resolves once the run has closed (continued as new, or ended otherwise: the next update says which). */
async function untilRunEnds(client: Client, workflowId: string, runId: string): Promise<void> {
  if (!runId) return new Promise((resolve) => setTimeout(resolve, 50));
  try {
    await client.workflow.getHandle(workflowId, runId, { followRuns: false }).result();
  } catch (error) {
    if (!(error instanceof WorkflowContinuedAsNewError) && !(error instanceof WorkflowFailedError)) throw error;
  }
}

/** Starts a workflow by its contract; the arguments are checked against the workflow's function type. */
export function startWorkflow<F extends Workflow>(client: Client, workflow: WorkflowType<F>, options: WorkflowStartOptions<F>): Promise<WorkflowHandle<F>> {
  return client.workflow.start<F>(workflow.name, options);
}
