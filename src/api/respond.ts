// Sending a created object through the idempotency store, so the saved and the sent bytes are one.
import { fingerprint } from '../domain/fingerprint';
import type { IdKind } from '../domain/ids';
import { authOf, type AppContext } from './context';
import type { Deps } from '../services/context';
import { IdempotencyStore } from '../services/idempotency';

export interface IdempotentCreate {
  /**
   * What a key is scoped to (docs/api-reference.md, "Idempotency"): the endpoint's operation, in
   * whichever shape it is asked.
   */
  operation: string;
  /**
   * The name the fingerprint gives the identity, when a shape has its own identity fields (Shape B's
   * creates): a key first sent in one shape and retried in the other then finds its claim and
   * differs in identity (`409 idempotency_key_reused`) instead of creating a second Payment.
   */
  identityName?: string;
  objectKind: IdKind;
  identity: Record<string, unknown>;
  /** Shape B keys expire after 24 hours; Shape A keys are kept for the retention period. */
  retentionSeconds?: number;
  create: (objectId: string, retry: boolean) => Promise<{ status: number; body: unknown }>;
  /** The answer holds a secret (a webhook endpoint's): the copy kept for replays is sealed at rest. */
  sealSavedBody?: boolean;
}

const SEALED = 'sealed:';

export async function respondIdempotently(ctx: AppContext, deps: Deps, spec: IdempotentCreate): Promise<void> {
  const auth = authOf(ctx);
  const store = new IdempotencyStore(deps.dataSource);
  const outcome = await store.run({
    apiKeyId: auth.apiKeyId,
    operation: spec.operation,
    key: ctx.state.idempotencyKey!,
    fingerprint: fingerprint(spec.identityName ?? spec.operation, spec.identity),
    objectKind: spec.objectKind,
    retentionSeconds: spec.retentionSeconds ?? deps.config.idempotencyRetentionSeconds,
    leaseMs: deps.config.idempotencyLeaseMs,
  }, async (objectId, retry) => {
    const result = await spec.create(objectId, retry);
    const body = JSON.stringify(result.body);
    return { status: result.status, body: spec.sealSavedBody ? SEALED + deps.secretBox.seal(body, auth.apiKeyId) : body };
  });
  ctx.status = outcome.response.status;
  ctx.type = 'application/json';
  if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
  const saved = outcome.response.body;
  ctx.body = saved.startsWith(SEALED) ? deps.secretBox.open(saved.slice(SEALED.length), auth.apiKeyId) : saved;
}
