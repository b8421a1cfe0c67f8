// Payout operations (spec 4.7, CONTRACT 9).
import type { AppRouter, Deps } from '../context';

export function registerPayoutRoutes(_router: AppRouter, _deps: Deps): void {
  // Implemented in the payouts issue.
}
