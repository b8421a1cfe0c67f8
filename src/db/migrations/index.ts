import { InitialSchema1763700000000 } from './1763700000000-initial-schema';
import { WebhookEvents1763900000000 } from './1763900000000-webhook-events';
import { PayoutSearch1764000000000 } from './1764000000000-payout-search';
import { ShapeB1764100000000 } from './1764100000000-shape-b';
import { PayoutListIndex1764500000000 } from './1764500000000-payout-list-index';
import { PaymentListIndex1764600000000 } from './1764600000000-payment-list-index';
import { PayoutCounts1764700000000 } from './1764700000000-payout-counts';
import { PayoutSearchGrams1764800000000 } from './1764800000000-payout-search-grams';
import { WebhookRelay1764900000000 } from './1764900000000-webhook-relay';
import { PayoutCreatedHours1765000000000 } from './1765000000000-payout-created-hours';
import { CardVaultCreated1765100000000 } from './1765100000000-card-vault-created';
import { IdempotencyScopePerEndpoint1765200000000 } from './1765200000000-idempotency-scope-per-endpoint';
import { ByteExactIdentifiers1765300000000 } from './1765300000000-byte-exact-identifiers';
import { PaymentListBySeq1765400000000 } from './1765400000000-payment-list-by-seq';
import { WebhookEndpoints1765500000000 } from './1765500000000-webhook-endpoints';
import { EventsApi1765600000000 } from './1765600000000-events-api';
import { LongTexts1765700000000 } from './1765700000000-long-texts';
import { HostedTokenHash1765800000000 } from './1765800000000-hosted-token-hash';
import { EndpointCircuit1765900000000 } from './1765900000000-endpoint-circuit';
import { EndpointDrainSchedule1766000000000 } from './1766000000000-endpoint-drain-schedule';

/** Every migration in order; listed explicitly so bundling and tsx need no glob loading. */
export const MIGRATIONS = [InitialSchema1763700000000, WebhookEvents1763900000000, PayoutSearch1764000000000, ShapeB1764100000000, PayoutListIndex1764500000000, PaymentListIndex1764600000000, PayoutCounts1764700000000, PayoutSearchGrams1764800000000, WebhookRelay1764900000000, PayoutCreatedHours1765000000000, CardVaultCreated1765100000000, IdempotencyScopePerEndpoint1765200000000, ByteExactIdentifiers1765300000000, PaymentListBySeq1765400000000, WebhookEndpoints1765500000000, EventsApi1765600000000, LongTexts1765700000000, HostedTokenHash1765800000000, EndpointCircuit1765900000000, EndpointDrainSchedule1766000000000];
