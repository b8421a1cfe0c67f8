// How much load each mode applies. Short: a smoke run for CI (about a minute, small data, one
// paced step per scenario). Full: a million payments and payouts, several rates and saturation.
import type { Plan } from './scenarios';

const none = { saturationConnections: null, saturationSeconds: 0 };

export const SHORT_PLAN: Plan = {
  mode: 'short',
  seed: { merchants: 10, payments: 20_000, payouts: 20_000 },
  warmupSeconds: 1,
  baseline: { rates: [10], durationSeconds: 3, ...none },
  sandbox: { rates: [50], durationSeconds: 2, ...none },
  create: { rates: [10], durationSeconds: 3, ...none },
  create3ds: { rates: [10], durationSeconds: 2, ...none },
  getById: { rates: [100], durationSeconds: 3, ...none },
  payoutQueries: { rates: [10], durationSeconds: 1, ...none },
  refundsHot: { rates: [5], durationSeconds: 2, ...none },
  refundsSpread: { rates: [5], durationSeconds: 2, ...none },
  webhook: { rate: 0, durationSeconds: 0 },
  codec: { rate: 10, durationSeconds: 5, repetitions: 1 },
};

export const FULL_PLAN: Plan = {
  mode: 'full',
  seed: { merchants: 100, payments: 1_000_000, payouts: 1_000_000 },
  warmupSeconds: 5,
  baseline: { rates: [10, 20, 40], durationSeconds: 20, saturationConnections: 32, saturationSeconds: 20 },
  sandbox: { rates: [200, 500], durationSeconds: 10, saturationConnections: 32, saturationSeconds: 10 },
  create: { rates: [10, 20, 40], durationSeconds: 20, saturationConnections: 32, saturationSeconds: 20 },
  create3ds: { rates: [20], durationSeconds: 15, saturationConnections: 32, saturationSeconds: 15 },
  getById: { rates: [100, 300], durationSeconds: 15, saturationConnections: 16, saturationSeconds: 15 },
  payoutQueries: { rates: [20], durationSeconds: 10, ...none },
  refundsHot: { rates: [5, 10], durationSeconds: 15, saturationConnections: 8, saturationSeconds: 15 },
  refundsSpread: { rates: [10, 20], durationSeconds: 15, saturationConnections: 16, saturationSeconds: 15 },
  webhook: { rate: 10, durationSeconds: 30 },
  codec: { rate: 20, durationSeconds: 30, repetitions: 3 },
};

/** Payout queries measured in the short mode (the full mode measures all of them). */
export const SHORT_PAYOUT_QUERIES = ['first page, no filter', 'name search, common first name', 'last-four search', 'amount search, one currency', 'deep cursor page (90%)', 'status filter (3%)'];
