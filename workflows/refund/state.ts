// The state of one RefundWorkflow run: what the Payment last heard of the refund, the provider's
// refund once it has taken it, where polling stands, and the operations both phases use.
import { continueAsNew, getExternalWorkflowHandle, patched, upsertSearchAttributes, type ExternalWorkflowHandle } from '@temporalio/workflow';
import { startPolling, type PollSchedule, type PollState } from '../../src/domain/polling';
import type { RefundStatus } from '../../src/domain/refunds';
import type { RefundResult } from '../../src/provider/types';
import { refundProgressSignal } from '../../contracts/payment';
import type { RefundProgress, RefundWorkflowFn, RefundWorkflowInput } from '../../contracts/refund';
import { ObjectStatusKey } from '../../contracts/search-attributes';

/** Provider calls per run for refunds of Payments started before `pollsPerRun` was in their settings. */
const DEFAULT_POLLS_PER_RUN = 100;

/** Released after 1.0.0: runs of 1.0.0 never continued as new (docs/operations.md, "the patch policy"). */
export const CONTINUE_AS_NEW_PATCH = 'refund-continues-as-new';

export class RefundState {
  readonly refundId: string;
  /** The status the Payment last heard (through `refundProgress`). */
  reported: RefundStatus;
  /** The provider's refund, once it has taken it; null while the refund is being (re)submitted. */
  providerId: string | null;
  /** The last answer to a submission: the Payment's first, then this workflow's. */
  submission: RefundResult;
  poll: PollState;
  /** Provider calls this run: it continues as new after `pollsPerRun`. */
  private callsThisRun = 0;
  private readonly payment: ExternalWorkflowHandle;

  constructor(readonly input: RefundWorkflowInput) {
    this.refundId = input.refund.id;
    this.reported = input.refund.status;
    this.submission = input.submission;
    this.providerId = input.continued?.providerId ?? null;
    this.poll = input.continued?.poll ?? startPolling(this.schedule);
    this.payment = getExternalWorkflowHandle(input.paymentWorkflowId);
  }

  get schedule(): PollSchedule {
    return { initialSeconds: this.input.pollIntervalSeconds, maxSeconds: this.input.maxPollIntervalSeconds };
  }

  /** Tells the Payment of a new status (and the status search attribute); a status it has heard is not sent again. */
  async report(progress: RefundProgress): Promise<RefundProgress> {
    if (progress.status !== this.reported) {
      this.reported = progress.status;
      upsertSearchAttributes([{ key: ObjectStatusKey, value: progress.status }]);
      await this.payment.signal(refundProgressSignal, progress);
    }
    return progress;
  }

  /** Counts a provider call of this run. */
  called(): void {
    this.callsThisRun += 1;
  }

  /**
   * Continues as new once this run has made `pollsPerRun` provider calls, so that a refund the
   * provider takes long to settle keeps a bounded history. Called between calls, with nothing in flight.
   */
  async continueAsNewIfDue(): Promise<void> {
    if (this.callsThisRun < (this.input.pollsPerRun ?? DEFAULT_POLLS_PER_RUN) || !patched(CONTINUE_AS_NEW_PATCH)) return;
    await continueAsNew<RefundWorkflowFn>({
      ...this.input,
      refund: { ...this.input.refund, status: this.reported },
      submission: this.submission,
      continued: { providerId: this.providerId, poll: this.poll },
    });
  }
}
