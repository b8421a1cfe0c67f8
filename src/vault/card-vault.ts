// Card tokenization (DESIGN decision 5): the API seals the card here and hands Temporal only the
// token. The CVC is deleted right after authorization; the PAN once it is no longer needed.
import type { DataSource } from 'typeorm';
import { CardVault } from '../db/entities';
import { newId } from '../domain/ids';
import { SecretBox } from './crypto';

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

  async forgetCvc(token: string): Promise<void> {
    await this.dataSource.getRepository(CardVault).update({ token }, { cvc_ciphertext: null });
  }

  async shred(token: string): Promise<void> {
    await this.dataSource.getRepository(CardVault).delete({ token });
  }
}
