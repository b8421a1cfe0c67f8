// Custom search attributes (docs/api-reference.md, "Workflows and search attributes"), in one place
// for the workflows, the dev server start-up and the docs. Workflow-safe: no I/O.
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';

export const MerchantIdKey = defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD);
export const LivemodeKey = defineSearchAttributeKey('Livemode', SearchAttributeType.BOOL);
export const ObjectTypeKey = defineSearchAttributeKey('ObjectType', SearchAttributeType.KEYWORD);
export const ObjectStatusKey = defineSearchAttributeKey('ObjectStatus', SearchAttributeType.KEYWORD);
export const AmountMinorKey = defineSearchAttributeKey('AmountMinor', SearchAttributeType.INT);
export const CurrencyKey = defineSearchAttributeKey('Currency', SearchAttributeType.KEYWORD);
/** Payouts only: how often the provider was polled, and when last. */
export const PollAttemptsKey = defineSearchAttributeKey('PollAttempts', SearchAttributeType.INT);
export const LastPolledAtKey = defineSearchAttributeKey('LastPolledAt', SearchAttributeType.DATETIME);

/** `--search-attribute` values for `temporal server start-dev`. */
export const SEARCH_ATTRIBUTE_DEFINITIONS: Record<string, 'Keyword' | 'Bool' | 'Int' | 'Datetime'> = {
  MerchantId: 'Keyword',
  Livemode: 'Bool',
  ObjectType: 'Keyword',
  ObjectStatus: 'Keyword',
  AmountMinor: 'Int',
  Currency: 'Keyword',
  PollAttempts: 'Int',
  LastPolledAt: 'Datetime',
};

export type ObjectType = 'payment' | 'refund' | 'payout';

/** The attributes every workflow of ours carries from its start. */
export function searchAttributesFor(o: { objectType: ObjectType; merchantId: string; livemode: boolean; amount: number; currency: string; status: string }) {
  return new TypedSearchAttributes([
    { key: MerchantIdKey, value: o.merchantId },
    { key: LivemodeKey, value: o.livemode },
    { key: ObjectTypeKey, value: o.objectType },
    { key: ObjectStatusKey, value: o.status },
    { key: AmountMinorKey, value: o.amount },
    { key: CurrencyKey, value: o.currency },
  ]);
}
