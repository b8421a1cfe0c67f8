// What differs between the two shapes on the Payment reads (docs/api-reference.md, "Versions and
// shapes"): how a Payment looks, what a well-formed path id is, and how `status` filter values are
// spelled. The handlers are shared.
import { PAYMENT_STATUSES, type PaymentStatus, type PaymentStatusFilter, type PaymentView } from '../domain/payment';
import { isShapeBPaymentId, isShapeBStatus, SHAPE_B_STATUSES, statusFilterB } from '../domain/payment-shape-b';
import { isId } from '../domain/ids';
import { serializePaymentA } from './payment-a';
import { serializePaymentB } from './payment-b';
import type { Shape } from './versions';

export interface PaymentShape {
  serialize(payment: PaymentView): Record<string, unknown>;
  isPaymentId(value: string): boolean;
  /** Explains a malformed path id. */
  paymentIdRule: string;
  /** The Payments one `status` query value selects, or null when the value is not spelled in this shape. */
  statusFilter(value: string): PaymentStatusFilter | null;
  statusValues: readonly string[];
}

export const PAYMENT_SHAPES: Record<Shape, PaymentShape> = {
  A: {
    serialize: serializePaymentA,
    isPaymentId: (value) => isId('payment', value),
    paymentIdRule: 'pay_ followed by 24 letters or digits',
    statusFilter: (value) => ((PAYMENT_STATUSES as readonly string[]).includes(value) ? { statuses: [value as PaymentStatus] } : null),
    statusValues: PAYMENT_STATUSES,
  },
  B: {
    serialize: serializePaymentB,
    isPaymentId: isShapeBPaymentId,
    paymentIdRule: 'pay_ followed by letters, digits or hyphens',
    statusFilter: (value) => (isShapeBStatus(value) ? statusFilterB(value) : null),
    statusValues: SHAPE_B_STATUSES,
  },
};
