// A CVC never outlives the authorization that could use it: a card sealed by a process that died
// before its workflow had it (or that the workflow could not shred) loses its CVC to the worker's
// vault sweep once no authorization could still need it. The PAN stays for whoever owns the card.
import type { RunningApi } from '../../src/api/server';
import { CardVault } from '../../src/db/entities';
import { cvcMaxAgeSeconds } from '../../src/vault/card-vault';
import { eventually, startTestApi, testConfig } from '../helpers/api';
import { resetChoreSchedules } from '../helpers/schedules';
import { TEST_ENV, workerEnv } from '../helpers/test-env';

let api: RunningApi;
beforeAll(async () => {
  api = await startTestApi();
  await resetChoreSchedules(api.deps.temporal, testConfig({ vaultSweepSeconds: Number(workerEnv().VAULT_SWEEP_SECONDS) }));
}, 60_000);
afterAll(async () => { await api.close(); });

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Seals a card, then dates it `ageSeconds` back. */
async function sealed(cvc: string | null, ageSeconds: number, createdAt = nowSeconds() - ageSeconds): Promise<string> {
  const token = await api.deps.vault.tokenize('mer_vault_sweep', { number: '4242424242424242', cvc });
  await api.deps.dataSource.getRepository(CardVault).update({ token }, { created_at: createdAt });
  return token;
}

it('forgets the CVCs sealed before the cutoff (and since a previous one) and keeps their PANs, and every newer CVC', async () => {
  // Dated far ahead, so that neither the running worker's sweep nor the cards of other tests interfere.
  const old = await sealed('737', 0, 4_000_000_000);
  const oldWithoutCvc = await sealed(null, 0, 4_000_000_000);
  const recent = await sealed('737', 0, 4_000_000_100);
  // Bounded below too: cards other tests sealed a moment ago may still hold their CVCs.
  const far = 3_999_999_000;
  expect(await api.deps.vault.forgetCvcsSealedBefore(4_000_000_050, far)).toBe(1);
  expect(await api.deps.vault.reveal(old)).toEqual({ number: '4242424242424242', cvc: null });
  expect(await api.deps.vault.reveal(oldWithoutCvc)).toEqual({ number: '4242424242424242', cvc: null });
  expect(await api.deps.vault.reveal(recent)).toEqual({ number: '4242424242424242', cvc: '737' });
  expect(await api.deps.vault.forgetCvcsSealedBefore(4_000_000_050, far)).toBe(0);
  // From a previous cutoff on: the CVCs sealed before it are not looked at again.
  const before = await sealed('737', 0, 4_000_000_010);
  const since = await sealed('737', 0, 4_000_000_060);
  expect(await api.deps.vault.forgetCvcsSealedBefore(4_000_000_100, 4_000_000_050)).toBe(1);
  expect((await api.deps.vault.reveal(before))?.cvc).toBe('737');
  expect((await api.deps.vault.reveal(since))?.cvc).toBeNull();
  expect((await api.deps.vault.reveal(recent))?.cvc).toBe('737');
  for (const token of [old, oldWithoutCvc, recent, before, since]) await api.deps.vault.shred(token);
});

it('the sweep finds old cards through an index on their age', async () => {
  const indexes: Array<{ Key_name: string; Column_name: string }> = await api.deps.dataSource.query('SHOW INDEX FROM card_vault');
  expect(indexes).toContainEqual(expect.objectContaining({ Key_name: 'idx_card_vault_created', Column_name: 'created_at' }));
});

it('a CVC lives through its Payment action window and a margin for the provider calls', () => {
  expect(cvcMaxAgeSeconds(900)).toBe(1_200);
  expect(cvcMaxAgeSeconds(TEST_ENV.actionTtlSeconds)).toBeGreaterThan(TEST_ENV.actionTtlSeconds + 3 * 15);
});

it('the running worker sweeps: an orphaned CVC goes, a CVC an authorization may still use stays', async () => {
  const maxAge = cvcMaxAgeSeconds(TEST_ENV.actionTtlSeconds);
  // Both age past the sweep's cutoff while the test runs (the worker sweeps what aged since its
  // last sweep): the orphaned card in 2 seconds, the other in a minute.
  const inUse = await sealed('737', maxAge - 60);
  const orphaned = await sealed('737', maxAge - 2);
  await eventually(() => api.deps.vault.reveal(orphaned), (card) => card?.cvc === null, 15_000);
  // The sweep that forgot the orphaned CVC ran after the other card was sealed.
  expect(await api.deps.vault.reveal(inUse)).toEqual({ number: '4242424242424242', cvc: '737' });
  for (const token of [orphaned, inUse]) await api.deps.vault.shred(token);
});
