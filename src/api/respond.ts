// Sending a created object through the idempotency store, so the saved and the sent bytes are one.
import { fingerprintOf, type RequestIdentity } from '../domain/idempotency';
import type { IdKind } from '../domain/ids';
import { authOf, type AppContext } from './context';
import type { Deps } from '../services/context';
import { IdempotencyStore } from '../services/idempotency';

export interface IdempotentCreate {
  /** The operation's idempotency identity, made by src/domain/idempotency.ts. */
  identity: RequestIdentity;
  objectKind: IdKind;
  /** Shape B keys expire after 24 hours; Shape A keys are kept for the retention period. */
  retentionSeconds?: number;
  create: (objectId: string, retry: boolean) => Promise<{ status: number; body: unknown }>;
  /** The answer holds a secret (a webhook endpoint's): the copy kept for replays is sealed at rest. */
  sealSavedBody?: boolean;
  /** Throws an ApiError when the saved answer may no longer be replayed (it holds a secret since rotated away). */
  checkReplay?: (savedBody: unknown) => Promise<void>;
}

const SEALED = 'sealed:';

export async function respondIdempotently(ctx: AppContext, deps: Deps, spec: IdempotentCreate): Promise<void> {
  const auth = authOf(ctx);
  const store = new IdempotencyStore(deps.dataSource);
  const outcome = await store.run({
    apiKeyId: auth.apiKeyId,
    operation: spec.identity.operation,
    key: ctx.state.idempotencyKey!,
    fingerprint: fingerprintOf(spec.identity),
    objectKind: spec.objectKind,
    retentionSeconds: spec.retentionSeconds ?? deps.config.idempotencyRetentionSeconds,
    leaseMs: deps.config.idempotencyLeaseMs,
  }, async (objectId, retry) => {
    const result = await spec.create(objectId, retry);
    const body = JSON.stringify(result.body);
    return { status: result.status, body: spec.sealSavedBody ? SEALED + deps.secretBox.seal(body, auth.apiKeyId) : body };
  });
  const saved = outcome.response.body;
  const body = saved.startsWith(SEALED) ? deps.secretBox.open(saved.slice(SEALED.length), auth.apiKeyId) : saved;
  if (outcome.replayed && spec.checkReplay) await spec.checkReplay(JSON.parse(body));
  ctx.status = outcome.response.status;
  ctx.type = 'application/json';
  if (outcome.replayed) ctx.set('Idempotent-Replayed', 'true');
  ctx.body = body;
}
