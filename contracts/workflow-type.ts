// A workflow type as its clients know it: the name it is registered under (an export of
// workflows/index.ts) and, as a type only, its function. Clients start workflows through it without
// importing the implementation; the implementation is declared with the same function type.
import type { Workflow } from '@temporalio/workflow';

export interface WorkflowType<F extends Workflow> {
  readonly name: string;
  /** Never set: carries the function type, so the arguments of a start are checked against it. */
  readonly signature?: F;
}
