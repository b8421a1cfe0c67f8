// Synchronous calls from the API into workflows, each under a deadline. What Temporal throws is
// turned into catalogue errors here and nowhere else.
import {
  WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, type TypedSearchAttributes } from '@temporalio/common';
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

export async function withDeadline<T>(client: Client, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await client.withDeadline(Date.now() + timeoutMs, fn);
  } catch (error) {
    return mapTemporalError(error);
  }
}

export interface StartSpec<Args extends unknown[]> {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: Args;
  searchAttributes: TypedSearchAttributes;
  /** One line for operators: shown as the workflow's summary in the Temporal UI and kept in its memo. */
  summary: string;
}

/** Update-with-Start: starts the workflow if it is not running, then waits for the update. */
export async function updateWithStart<R, Args extends unknown[]>(
  client: Client, timeoutMs: number, update: string, start: StartSpec<Args>,
): Promise<R> {
  return withDeadline(client, timeoutMs, () => client.workflow.executeUpdateWithStart<(...args: Args) => Promise<unknown>, R, []>(update, {
    startWorkflowOperation: new WithStartWorkflowOperation(start.workflowType, {
      workflowId: start.workflowId,
      taskQueue: start.taskQueue,
      args: start.args,
      workflowIdConflictPolicy: 'USE_EXISTING',
      // A closed run is only ever one that never registered its object (callers check the read model
      // first on retries), so a retry may start the id afresh.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      typedSearchAttributes: start.searchAttributes,
      memo: { summary: start.summary },
      staticSummary: start.summary,
    }),
  }));
}

export async function update<R>(client: Client, timeoutMs: number, workflowId: string, name: string, args: unknown[]): Promise<R> {
  const handle = client.workflow.getHandle(workflowId);
  return withDeadline(client, timeoutMs, () => handle.executeUpdate<R, [unknown, ...unknown[]]>(name, { args: args as [unknown, ...unknown[]] }));
}
