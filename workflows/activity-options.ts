// Activity options the workflows share. Workflow-safe: constants only.
import type { ActivityOptions } from '@temporalio/workflow';

/** Background work (read-model projection, event publication, card shredding): retried until it succeeds. */
export const BACKGROUND_ACTIVITY_OPTIONS = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' },
} as const satisfies ActivityOptions;
