// Idempotency (docs/api-reference.md, "Idempotency"; docs/decisions.md, 6): a claim row per (API
// key, operation, key) is inserted before any work. It binds the key to a fingerprint and to the id
// of the object the operation creates; that id becomes the workflow id, so a retry after an error
// or a crash drives the same workflow and never creates a second object. Only 2xx answers are saved
// and replayed.
import type { DataSource } from 'typeorm';
import { IdempotencyRecord, type IdempotencyRecordRow } from '../db/entities';
import { isDuplicateKeyError } from '../db/errors';
import { ApiError } from '../domain/errors';
import { newId, type IdKind } from '../domain/ids';

export interface IdempotencyScope {
  apiKeyId: string;
  operation: string;
  key: string;
  fingerprint: string;
  objectKind: IdKind;
  retentionSeconds: number;
  leaseMs: number;
}

export interface SavedResponse {
  status: number;
  body: string;
}

export type IdempotentOutcome = { replayed: true; response: SavedResponse } | { replayed: false; response: SavedResponse };

const MAX_CLAIM_ATTEMPTS = 3;

/** A claim this request holds: the bound object id, and until when its lease runs. */
interface Claim {
  seq: number;
  objectId: string;
  retry: boolean;
  lockedUntilMs: number;
}

export class IdempotencyStore {
  constructor(private readonly dataSource: DataSource) {}

  private get repo() {
    return this.dataSource.getRepository(IdempotencyRecord);
  }

  /**
   * Runs `operation` at most once per scope. `operation` receives the object id bound to the key
   * (and whether an earlier attempt already held it) and answers with a serialized response; a
   * thrown ApiError is answered but not saved.
   */
  async run(scope: IdempotencyScope, operation: (objectId: string, retry: boolean) => Promise<SavedResponse>): Promise<IdempotentOutcome> {
    const claim = await this.claim(scope);
    if ('replay' in claim) return { replayed: true, response: claim.replay };
    const lease = this.holdLease(claim, scope.leaseMs);
    let response: SavedResponse;
    try {
      response = await operation(claim.objectId, claim.retry);
    } catch (error) {
      await this.release(claim.seq, await lease.stop());
      throw error;
    }
    const heldUntilMs = await lease.stop();
    if (response.status >= 200 && response.status < 300) {
      await this.repo.update({ seq: claim.seq }, { state: 'completed', response_status: response.status, response_body: response.body });
    } else {
      await this.release(claim.seq, heldUntilMs);
    }
    return { replayed: false, response };
  }

  /**
   * Keeps a running request's claim: the lease is what tells a dead request from a slow one (a
   * Shape B create can wait for two workflow updates), so a live process renews it every third of
   * the lease: the lease stays short (a dead process's key is free again within it) and one
   * renewal that fails or comes late still leaves the next in time. A request shorter than that
   * writes nothing more. `stop()` answers the lease it holds last, or null once another request
   * took the claim over (this process stalled past it).
   */
  private holdLease(claim: Claim, leaseMs: number): { stop: () => Promise<number | null> } {
    let heldUntilMs: number | null = claim.lockedUntilMs;
    let renewing: Promise<void> = Promise.resolve();
    const renew = async () => {
      if (heldUntilMs === null) return;
      const next = Date.now() + leaseMs;
      const renewed = await this.repo.update({ seq: claim.seq, state: 'processing', locked_until_ms: heldUntilMs }, { locked_until_ms: next });
      heldUntilMs = renewed.affected ? next : null;
    };
    const timer = setInterval(() => {
      renewing = renewing.then(renew).catch(() => undefined); // a failed renewal is tried again next time
    }, Math.max(1, Math.floor(leaseMs / 3)));
    timer.unref();
    return {
      stop: async () => {
        clearInterval(timer);
        await renewing;
        return heldUntilMs;
      },
    };
  }

  private async claim(scope: IdempotencyScope): Promise<Claim | { replay: SavedResponse }> {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt += 1) {
      const nowMs = Date.now();
      const objectId = newId(scope.objectKind);
      try {
        const result = await this.repo.insert({
          api_key_id: scope.apiKeyId,
          operation: scope.operation,
          idempotency_key: scope.key,
          fingerprint: scope.fingerprint,
          object_id: objectId,
          state: 'processing',
          response_status: null,
          response_body: null,
          locked_until_ms: nowMs + scope.leaseMs,
          created_at: Math.floor(nowMs / 1000),
          expires_at: Math.floor(nowMs / 1000) + scope.retentionSeconds,
        });
        return { seq: Number(result.identifiers[0]!.seq), objectId, retry: false, lockedUntilMs: nowMs + scope.leaseMs };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const existing = await this.repo.findOneBy({ api_key_id: scope.apiKeyId, operation: scope.operation, idempotency_key: scope.key });
      if (!existing) continue; // expired and removed meanwhile: claim again
      if (existing.expires_at <= Math.floor(nowMs / 1000)) {
        await this.repo.delete({ seq: existing.seq, expires_at: existing.expires_at });
        continue;
      }
      return this.resolveExisting(existing, scope, nowMs);
    }
    throw new ApiError('idempotency_key_in_use', { param: 'Idempotency-Key' });
  }

  private async resolveExisting(existing: IdempotencyRecordRow, scope: IdempotencyScope, nowMs: number): Promise<Claim | { replay: SavedResponse }> {
    if (existing.fingerprint !== scope.fingerprint) throw new ApiError('idempotency_key_reused', { param: 'Idempotency-Key' });
    if (existing.state === 'completed' && existing.response_status !== null && existing.response_body !== null) {
      return { replay: { status: existing.response_status, body: existing.response_body } };
    }
    if (existing.locked_until_ms > nowMs) throw new ApiError('idempotency_key_in_use', { param: 'Idempotency-Key' });
    // The earlier request ended in an error or died: take its claim over, keeping its object id.
    const taken = await this.repo.update(
      { seq: existing.seq, locked_until_ms: existing.locked_until_ms, state: 'processing' },
      { locked_until_ms: nowMs + scope.leaseMs },
    );
    if (!taken.affected) throw new ApiError('idempotency_key_in_use', { param: 'Idempotency-Key' });
    return { seq: existing.seq, objectId: existing.object_id, retry: true, lockedUntilMs: nowMs + scope.leaseMs };
  }

  /** Lets a same-key retry in at once; a lease another request has taken over is not ours to release. */
  private async release(seq: number, heldUntilMs: number | null): Promise<void> {
    if (heldUntilMs === null) return;
    await this.repo.update({ seq, state: 'processing', locked_until_ms: heldUntilMs }, { locked_until_ms: 0 });
  }

  /** Removes records past their retention; run periodically by the API process. */
  async purgeExpired(nowSeconds = Math.floor(Date.now() / 1000)): Promise<number> {
    const result = await this.repo.createQueryBuilder().delete().where('expires_at <= :now', { now: nowSeconds }).execute();
    return result.affected ?? 0;
  }
}
