// Card tokenization (docs/architecture.md): the API seals the card here and hands Temporal only the
// token. The card (CVC and PAN) is shredded once its authorization's answer is in history, a payout's
// card once the payout is terminal; a CVC left behind by a process that died is swept by age.
import { Between, IsNull, Not, type DataSource } from 'typeorm';
import { CardVault } from '../db/entities';
import { newId } from '../domain/ids';
import { SecretBox } from './crypto';

/**
 * An authorization uses a CVC within its Payment's action window (a create retried under its key
 * until the workflow gives up, a hosted page submitted and authorized at once), plus the retries of
 * its provider calls, well inside this margin. A CVC sealed longer ago belongs to a card whose
 * process died before a workflow had it (or to a workflow that could not shred it): it is forgotten.
 */
const CVC_MARGIN_SECONDS = 300;

export function cvcMaxAgeSeconds(paymentActionTtlSeconds: number): number {
  return paymentActionTtlSeconds + CVC_MARGIN_SECONDS;
}

export interface VaultedCard {
  number: string;
  cvc: string | null;
}

export class CardVaultStore {
  constructor(private readonly dataSource: DataSource, private readonly box: SecretBox) {}

  /**
   * Seals a card under `token` (a fresh one by default). With an existing token the first card
   * stays: a same-key retry with other card fields must not replace the card of the Payment.
   */
  async tokenize(merchantId: string, card: { number: string; cvc?: string | null }, token = newId('cardToken')): Promise<string> {
    await this.dataSource.getRepository(CardVault).createQueryBuilder().insert().orIgnore().values({
      token,
      merchant_id: merchantId,
      // The token is the associated data: a ciphertext moved to another row does not open.
      pan_ciphertext: this.box.seal(card.number, token),
      cvc_ciphertext: card.cvc ? this.box.seal(card.cvc, `${token}:cvc`) : null,
      created_at: Math.floor(Date.now() / 1000),
    }).execute();
    return token;
  }

  async reveal(token: string): Promise<VaultedCard | null> {
    const row = await this.dataSource.getRepository(CardVault).findOneBy({ token });
    if (!row) return null;
    return {
      number: this.box.open(row.pan_ciphertext, token),
      cvc: row.cvc_ciphertext ? this.box.open(row.cvc_ciphertext, `${token}:cvc`) : null,
    };
  }

  /**
   * Forgets every CVC sealed before `cutoffSeconds` and not before `sinceSeconds` (the PAN stays);
   * returns how many. A sweep passes its previous cutoff as `sinceSeconds`, so that the cards of
   * long-pending payouts (no CVC) are not read again every time.
   */
  async forgetCvcsSealedBefore(cutoffSeconds: number, sinceSeconds = 0): Promise<number> {
    const result = await this.dataSource.getRepository(CardVault).update(
      { created_at: Between(sinceSeconds, cutoffSeconds - 1), cvc_ciphertext: Not(IsNull()) },
      { cvc_ciphertext: null },
    );
    return result.affected ?? 0;
  }

  async shred(token: string): Promise<void> {
    await this.dataSource.getRepository(CardVault).delete({ token });
  }
}
