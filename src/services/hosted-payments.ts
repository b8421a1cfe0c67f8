// The hosted payment page's business: find the Payment behind a hosted token, check the shopper's
// card, seal it in the vault, and hand only the token to the PaymentWorkflow's `submitHostedCard`
// update, which authenticates it like a Direct payment (3D Secure included).
import type { Deps } from './context';
import { Merchant, Payment } from '../db/entities';
import { cardExpired, maskedCard } from '../domain/cards';
import { ApiError } from '../domain/errors';
import { cspSourceOf, hostedPageOpen, parseCardForm, type FieldErrors, type SafeFormValues, type ValidCard } from '../domain/hosted-page';
import { isId } from '../domain/ids';
import type { PaymentView } from '../domain/payment';
import { merchantReturnUrl } from './return-url';
import { findPaymentByHostedToken, rowToPayment } from '../read-models/payments';
import { executeUpdate, WorkflowClosedError } from '../temporal/calls';
import { submitHostedCardUpdate, type CreateOutcome, type HostedCardSubmission } from '../../contracts/payment';
import { unansweredCreateError } from './payments';

/** Hosted tokens are 32 base62 characters (PaymentService.create); anything else is not looked up. */
const HOSTED_TOKEN = /^[A-Za-z0-9]{32}$/;

export interface Checkout {
  /** The token of the page's URL (the row keeps only its hash). */
  token: string;
  payment: PaymentView;
  merchantName: string;
}

export type SubmitResult =
  | { kind: 'not_found' }
  /** The form can no longer (or not yet) take a card; the page shows the Payment's state. */
  | { kind: 'closed'; checkout: Checkout }
  | { kind: 'invalid'; checkout: Checkout; errors: FieldErrors; values: SafeFormValues }
  /** The bank could not be reached; the Payment stays open for another try. */
  | { kind: 'retry'; checkout: Checkout; message: string; retryAfterSeconds: number | null }
  | { kind: 'redirect'; location: string };

const RETRY_MESSAGE = 'We could not reach your bank to confirm this payment. Please try again in a moment.';

export class HostedPaymentService {
  constructor(private readonly deps: Deps) {}

  async load(token: string): Promise<Checkout | null> {
    if (!HOSTED_TOKEN.test(token)) return null;
    const payment = await findPaymentByHostedToken(this.deps.dataSource, this.deps.secretBox, token);
    if (!payment || payment.integration_type !== 'HOSTED_PAYMENT_PAGE') return null;
    const merchant = await this.deps.dataSource.getRepository(Merchant).findOneBy({ id: payment.merchant_id });
    return { token, payment, merchantName: merchant?.name ?? 'Merchant' };
  }

  /**
   * Where the browser goes back to after 3D Secure: the merchant's return URL of the Payment (any
   * merchant's: the browser brings no credential), or null when there is none.
   */
  async returnUrl(paymentId: string): Promise<string | null> {
    const row = isId('payment', paymentId) ? await this.deps.dataSource.getRepository(Payment).findOneBy({ id: paymentId }) : null;
    return row ? merchantReturnUrl(rowToPayment(row, [], this.deps.secretBox)) : null;
  }

  /**
   * Origins the page's form submission may end up on: its POST answers with a redirect to the 3DS
   * page or to the merchant, and browsers hold those redirects to the CSP `form-action` list.
   */
  formActionOrigins(payment: PaymentView): string[] {
    const { config } = this.deps;
    const providerUrl = payment.livemode ? config.liveProviderUrl : config.sandboxUrl;
    // A stored URL whose host a CSP cannot carry (accepted before that was checked) is left out.
    return [payment.return_url, providerUrl].flatMap((url) => {
      const source = url ? cspSourceOf(url) : null;
      return source ? [source] : [];
    });
  }

  async submit(token: string, form: URLSearchParams): Promise<SubmitResult> {
    const checkout = await this.load(token);
    if (!checkout) return { kind: 'not_found' };
    // A page already submitted (or finished) never reaches the vault or the provider again.
    if (!hostedPageOpen(checkout.payment)) return { kind: 'closed', checkout };
    const parsed = parseCardForm(form, { livemode: checkout.payment.livemode, now: new Date() });
    if (!parsed.ok) return { kind: 'invalid', checkout, errors: parsed.errors, values: parsed.values };
    return this.authenticate(checkout, parsed.card);
  }

  private async authenticate(checkout: Checkout, card: ValidCard): Promise<SubmitResult> {
    const { deps } = this;
    const payment = checkout.payment;
    // A fresh token per attempt: an earlier attempt's card is already shredded or never used.
    const cardToken = await deps.vault.tokenize(payment.merchant_id, { number: card.number, cvc: card.cvc });
    const submission: HostedCardSubmission = {
      cardToken,
      card: {
        ...maskedCard(card.number),
        exp_month: card.expMonth,
        exp_year: card.expYear,
        cardholder_name: card.holderName,
        country: null,
      },
      cardExpired: cardExpired(card.expMonth, card.expYear, new Date()),
    };
    let outcome: CreateOutcome;
    try {
      outcome = await executeUpdate(deps.temporal, deps.config.workflowUpdateTimeoutMs, payment.id, submitHostedCardUpdate, submission);
    } catch (error) {
      if (error instanceof WorkflowClosedError) {
        // The Payment finished (expired) meanwhile: its workflow never saw this card.
        await deps.vault.shred(cardToken);
        const latest = await this.reload(checkout);
        return { kind: 'closed', checkout: latest };
      }
      // Deadline passed: the workflow may still hold the card, so it stays its to shred.
      if (error instanceof ApiError && error.code === 'service_unavailable') {
        return { kind: 'retry', checkout, message: RETRY_MESSAGE, retryAfterSeconds: null };
      }
      throw error;
    }
    if (outcome.kind === 'unanswered') {
      // The next attempt brings its own card, so this one leaves the vault now (if the provider
      // holds its authorization, the workflow finds it under the Payment's key first).
      await deps.vault.shred(cardToken);
      return { kind: 'retry', checkout, message: RETRY_MESSAGE, retryAfterSeconds: unansweredCreateError(outcome).retryAfterSeconds };
    }
    return this.nextStep({ ...checkout, payment: outcome.payment });
  }

  /** Where the browser goes after a submission the workflow accepted. */
  private nextStep(checkout: Checkout): SubmitResult {
    const { payment } = checkout;
    if (payment.status === 'REQUIRES_ACTION' && payment.next_action?.reason === 'three_d_secure') {
      return { kind: 'redirect', location: payment.next_action.redirect_url };
    }
    // Declines go back too: the merchant reads the FAILED status from the API.
    if (payment.status === 'PROCESSING' || payment.status === 'SUCCEEDED' || payment.status === 'FAILED') {
      const back = merchantReturnUrl(payment);
      if (back) return { kind: 'redirect', location: back };
    }
    if (hostedPageOpen(payment)) return { kind: 'retry', checkout, message: RETRY_MESSAGE, retryAfterSeconds: null };
    return { kind: 'closed', checkout };
  }

  private async reload(checkout: Checkout): Promise<Checkout> {
    return (await this.load(checkout.token)) ?? checkout;
  }
}
