// POST /v1/refunds (spec 4.5): an update on the parent PaymentWorkflow, which owns the balance.
import type { AppRouter, Deps } from '../context';

export function registerRefundRoutes(_router: AppRouter, _deps: Deps): void {
  // Implemented in the refunds issue.
}
