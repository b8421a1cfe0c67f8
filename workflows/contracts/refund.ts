// The RefundWorkflow's contract: what its parent PaymentWorkflow starts it with (the refund as the
// provider's answer to its submission left it), and what it reports (to the Payment through the
// payment contract's `refundProgress` signal, and as its result).
import type { FailureCode } from '../../src/domain/failure-codes';
import type { RefundView } from '../../src/domain/payment';
import type { RefundStatus } from '../../src/domain/refunds';
import type { RefundResult } from '../../src/provider/types';
import type { WorkflowType } from './workflow-type';

export interface RefundWorkflowInput {
  /** The refund as the Payment recorded the submission's outcome (PROCESSING, SUCCEEDED or FAILED). */
  refund: RefundView;
  /** The provider's answer to the Payment's submission; unanswered: resubmit under the same key. */
  submission: RefundResult;
  livemode: boolean;
  merchantId: string;
  paymentWorkflowId: string;
  authorizationId: string;
  pollIntervalSeconds: number;
  maxPollIntervalSeconds: number;
}

export interface RefundProgress {
  refundId: string;
  status: RefundStatus;
  failureCode: FailureCode | null;
}

export type RefundWorkflowFn = (input: RefundWorkflowInput) => Promise<RefundProgress>;
export const refundWorkflow: WorkflowType<RefundWorkflowFn> = { name: 'RefundWorkflow' };
