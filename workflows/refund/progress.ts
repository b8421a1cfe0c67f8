// What a provider's answer on a refund makes of it: the one mapping that the Payment's workflow (the
// answer to its submission) and the RefundWorkflow (resubmissions and look-ups) use. Without an
// answer, or while the provider settles it, a refund is PROCESSING: it may be with the provider, so
// never a failure and never a second refund.
import type { Lookup, RefundAnswer } from '../../src/provider/types';
import type { RefundProgress } from '../../contracts/refund';

export function refundProgress(refundId: string, answer: Lookup<RefundAnswer>): RefundProgress {
  switch (answer.kind) {
    case 'rejected':
    case 'failed':
      return { refundId, status: 'FAILED', failureCode: answer.failureCode };
    case 'succeeded':
      return { refundId, status: 'SUCCEEDED', failureCode: null };
    case 'processing':
    case 'unanswered':
    case 'not_found':
      return { refundId, status: 'PROCESSING', failureCode: null };
  }
}
