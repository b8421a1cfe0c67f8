// The RefundWorkflow's contract: what its parent PaymentWorkflow starts it with (the refund as the
// provider's answer to its submission left it), and what it reports (to the Payment through the
// payment contract's `refundProgress` signal, and as its result).
import type { FailureCode } from '../src/domain/failure-codes';
import type { RefundView } from '../src/domain/payment';
import type { PollState } from '../src/domain/polling';
import type { RefundStatus } from '../src/domain/refunds';
import type { RefundResult } from '../src/provider/types';
import type { WorkflowType } from './workflow-type';

export interface RefundWorkflowInput {
  /** The refund as the Payment recorded the submission's outcome (PROCESSING, SUCCEEDED or FAILED). */
  refund: RefundView;
  /** The provider's answer to the last submission (the Payment's first); unanswered: resubmit under the same key. */
  submission: RefundResult;
  livemode: boolean;
  merchantId: string;
  paymentWorkflowId: string;
  authorizationId: string;
  pollIntervalSeconds: number;
  maxPollIntervalSeconds: number;
  /** Provider calls per run before continue-as-new (absent for Payments started before it was a setting). */
  pollsPerRun?: number;
  /** Set by continue-as-new: the provider's refund once it had taken it, and where polling stood. */
  continued?: { providerId: string | null; poll: PollState };
}

export interface RefundProgress {
  refundId: string;
  status: RefundStatus;
  failureCode: FailureCode | null;
}

export type RefundWorkflowFn = (input: RefundWorkflowInput) => Promise<RefundProgress>;
export const refundWorkflow: WorkflowType<RefundWorkflowFn> = { name: 'RefundWorkflow' };
