// The Payout operations (Shape A only).
import { createPayoutSchema, listPayoutsQuerySchema } from '../schemas/payouts';
import { operation } from './operation';

export const createPayout = operation({
  id: 'createPayout',
  method: 'post',
  path: '/v1/payouts',
  tag: 'Payouts',
  summary: 'Submit a Payout',
  description: 'Sends funds to a Visa or Mastercard card, server to server (no browser step). An uncertain provider answer (rate limit, '
    + 'timeout) is a `201` `PENDING` Payout, not an error: the service resolves it. A same-key replay returns the saved creation '
    + 'answer; read the current state with `GET /v1/payouts/{payout_id}`. Always Shape A.',
  authenticated: true,
  create: true,
  shapes: ['A'],
  requestBody: { A: { component: 'PayoutRequest', schema: createPayoutSchema, examples: ['payoutRequest'] } },
  responses: [{ status: 201, description: 'The Payout, submitted.', json: { A: { component: 'Payout', examples: ['payoutPending', 'payoutFailed'] } } }],
});

export const listPayouts = operation({
  id: 'listPayouts',
  method: 'get',
  path: '/v1/payouts',
  tag: 'Payouts',
  summary: 'List Payouts',
  description: 'Newest first. `search` is literal and case-insensitive across ids, merchant references and recipient names; four '
    + 'digits also match the card\'s last four; with exactly one `currency` filter a major-unit amount (decimal point or comma) '
    + 'matches too. Every filter applies even with `search`. `total_count` counts all matches before pagination. '
    + '`starting_after` and `ending_before` cannot be combined; `created[gte]` must not be after `created[lt]`, nor `amount[gte]` '
    + 'above `amount[lte]`.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  query: { A: listPayoutsQuerySchema },
  responses: [{ status: 200, description: 'One page of Payouts.', json: { A: { component: 'PayoutList', examples: ['payoutList'] } } }],
});

export const retrievePayout = operation({
  id: 'retrievePayout',
  method: 'get',
  path: '/v1/payouts/{payout_id}',
  tag: 'Payouts',
  summary: 'Retrieve a Payout',
  description: 'The latest recorded state. Retrieving never advances a Payout.',
  authenticated: true,
  create: false,
  shapes: ['A'],
  pathParameter: 'PayoutId',
  responses: [{ status: 200, description: 'The Payout.', json: { A: { component: 'Payout', examples: ['payoutSucceeded'] } } }],
});
