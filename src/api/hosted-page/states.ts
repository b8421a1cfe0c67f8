// What the hosted page shows for each state of its Payment. Pure: the service decides what
// happened, these functions decide what the shopper reads.
import { formatMinor } from '../../domain/money';
import type { PaymentView } from '../../domain/payment';
import type { Checkout } from '../../services/hosted-payments';
import { merchantReturnUrl } from '../../services/return-url';
import type { PageHeading } from './html';
import type { StatusPageView } from './pages';

/** The merchant and amount at the top of every page of a known Payment. */
export function pageHeading(checkout: Checkout): PageHeading {
  const { payment } = checkout;
  return {
    merchantName: checkout.merchantName,
    amount: formatMinor(payment.amount, payment.currency),
    description: payment.description,
    testMode: !payment.livemode,
  };
}

/** The page of a Payment whose form can no longer be used (or, PENDING, not yet). */
export function closedPaymentPage(payment: PaymentView, heading: PageHeading): StatusPageView {
  const back = merchantReturnUrl(payment);
  const returnLink = back ? { href: back, text: `Return to ${heading.merchantName}` } : undefined;
  switch (payment.status) {
    case 'EXPIRED':
      return {
        heading, tone: 'problem', link: returnLink,
        title: 'This payment page has expired',
        message: `The time to complete this payment ran out and nothing was charged. Return to ${heading.merchantName} to start again.`,
      };
    case 'SUCCEEDED':
      return {
        heading, tone: 'success', link: returnLink,
        title: 'This payment is already completed',
        message: 'Your payment went through. There is nothing more to do here.',
      };
    case 'PROCESSING':
      return {
        heading, tone: 'pending', link: returnLink,
        title: 'This payment is already being processed',
        message: 'Your card details were received and the payment is being processed. You do not need to pay again.',
      };
    case 'FAILED':
      return {
        heading, tone: 'problem', link: returnLink,
        title: 'This payment was not completed',
        message: `The payment was declined. Return to ${heading.merchantName} to choose another way to pay.`,
      };
    case 'REQUIRES_ACTION':
      if (payment.next_action?.reason === 'three_d_secure') {
        return {
          heading, tone: 'pending',
          link: { href: payment.next_action.redirect_url, text: 'Continue to your bank' },
          title: 'This payment is already being processed',
          message: 'Your card details were received. Your bank asks you to confirm the payment.',
        };
      }
      break;
    default:
      break;
  }
  return {
    heading, tone: 'pending',
    title: 'This payment is being prepared',
    message: 'The payment page is not ready yet. Reload this page in a moment.',
  };
}

export function notFoundPage(): StatusPageView {
  return {
    tone: 'problem',
    title: 'Payment page not found',
    message: 'This payment link is not valid. Check the link you were given, or return to the shop and start the payment again.',
  };
}

export function unavailablePage(heading?: PageHeading): StatusPageView {
  return {
    heading, tone: 'problem',
    title: 'Something went wrong',
    message: 'The payment page is temporarily unavailable. Please try again in a moment.',
  };
}

export function crossSiteSubmissionPage(heading: PageHeading): StatusPageView {
  return {
    heading, tone: 'problem',
    title: 'Payment not submitted',
    message: 'Card details can only be submitted from this payment page. Open the payment link again to pay.',
  };
}
