// The Hosted Payment Page for shoppers' browsers (docs/hosted-page.md): GET shows the card form of the
// Payment behind a hosted token, POST takes the card. Plain HTML forms, no JavaScript, no cookies.
//
// No separate CSRF token: the page keeps no session or cookie a forged request could ride on, and
// the only credential is the unguessable hosted token in the path (190 bits), which a forging site
// would need to know anyway. Cross-site POSTs that browsers label as such are refused as well.
import type { Next } from 'koa';
import { ApiError } from '../../domain/errors';
import { hostedPageOpen, parseUrlEncodedForm } from '../../domain/hosted-page';
import { pageSecurityHeaders } from '../hosted-page/html';
import { renderCheckoutForm, renderStatusPage, type CheckoutFormView, type StatusPageView } from '../hosted-page/pages';
import { closedPaymentPage, crossSiteSubmissionPage, notFoundPage, pageHeading, unavailablePage } from '../hosted-page/states';
import { HostedPaymentService, type Checkout } from '../../services/hosted-payments';
import type { AppContext, AppRouter } from '../context';
import type { Deps } from '../../services/context';
import { readBody, type BodyProblem } from '../request-body';

const MAX_FORM_BYTES = 8 * 1024;

function sendPage(ctx: AppContext, status: number, html: string, formActionOrigins: string[] = []): void {
  ctx.status = status;
  ctx.set(pageSecurityHeaders(formActionOrigins));
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

function sendStatusPage(ctx: AppContext, status: number, view: StatusPageView): void {
  sendPage(ctx, status, renderStatusPage(view));
}

function seeOther(ctx: AppContext, location: string): void {
  ctx.set(pageSecurityHeaders());
  ctx.status = 303;
  ctx.redirect(location);
}

/** Shoppers get pages, not JSON envelopes, for whatever goes wrong. */
function pageErrors() {
  return async (ctx: AppContext, next: Next): Promise<void> => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'service_unavailable')) {
        ctx.state.logger.error({ err: error instanceof Error ? { type: error.name, message: error.message } : String(error) }, 'hosted page failed');
      }
      sendStatusPage(ctx, error instanceof ApiError && error.code === 'service_unavailable' ? 503 : 500, unavailablePage());
    }
  };
}

type FormRead = { form: URLSearchParams } | { status: number; notice: string };

const UNREADABLE_FORM = { status: 400, notice: 'The form could not be read. Please enter your card details again.' };
const FORM_PROBLEMS: Record<BodyProblem, { status: number; notice: string }> = {
  too_large: { status: 413, notice: 'The form was too large to process. Please enter your card details again.' },
  too_slow: { status: 408, notice: 'The form took too long to arrive. Please enter your card details again.' },
  not_utf8: UNREADABLE_FORM,
  unreadable: UNREADABLE_FORM,
};

/**
 * The urlencoded body, or the status and notice of a form that cannot be read (browsers send this
 * page's form as UTF-8; text that is not, or a malformed escape, comes from no browser). Other media
 * types read as an empty form.
 */
async function readForm(ctx: AppContext): Promise<FormRead> {
  if (!ctx.is('application/x-www-form-urlencoded')) return { form: new URLSearchParams() };
  const read = await readBody(ctx, MAX_FORM_BYTES);
  if ('problem' in read) return FORM_PROBLEMS[read.problem];
  const form = parseUrlEncodedForm(read.text);
  return form ? { form } : UNREADABLE_FORM;
}

export function registerHostedPageRoutes(router: AppRouter, deps: Deps): void {
  const service = new HostedPaymentService(deps);

  const sendForm = (ctx: AppContext, status: number, checkout: Checkout, view: Omit<CheckoutFormView, 'heading' | 'billing'> = {}) => {
    const html = renderCheckoutForm({ heading: pageHeading(checkout), billing: checkout.payment.billing_details, ...view });
    sendPage(ctx, status, html, service.formActionOrigins(checkout.payment));
  };

  const sendClosed = (ctx: AppContext, checkout: Checkout, otherwise: number) => {
    sendStatusPage(ctx, checkout.payment.status === 'EXPIRED' ? 410 : otherwise, closedPaymentPage(checkout.payment, pageHeading(checkout)));
  };

  router.get('hostedPage', '/checkout/:token', pageErrors(), async (ctx) => {
    const checkout = await service.load(ctx.params.token!);
    if (!checkout) return sendStatusPage(ctx, 404, notFoundPage());
    if (hostedPageOpen(checkout.payment)) return sendForm(ctx, 200, checkout);
    sendClosed(ctx, checkout, 200);
  });

  router.post('hostedPageSubmit', '/checkout/:token', pageErrors(), async (ctx) => {
    const token = ctx.params.token!;
    if (ctx.get('sec-fetch-site') === 'cross-site') {
      const checkout = await service.load(token);
      if (!checkout) return sendStatusPage(ctx, 404, notFoundPage());
      return sendStatusPage(ctx, 403, crossSiteSubmissionPage(pageHeading(checkout)));
    }
    const read = await readForm(ctx);
    if (!('form' in read)) {
      const checkout = await service.load(token);
      if (!checkout) return sendStatusPage(ctx, 404, notFoundPage());
      return sendForm(ctx, read.status, checkout, { notice: read.notice });
    }
    const result = await service.submit(token, read.form);
    switch (result.kind) {
      case 'not_found':
        return sendStatusPage(ctx, 404, notFoundPage());
      case 'closed':
        return sendClosed(ctx, result.checkout, 409);
      case 'invalid':
        return sendForm(ctx, 422, result.checkout, { errors: result.errors, values: result.values });
      case 'retry':
        if (result.retryAfterSeconds !== null) ctx.set('Retry-After', String(result.retryAfterSeconds));
        return sendForm(ctx, 503, result.checkout, { notice: result.message });
      case 'redirect':
        return seeOther(ctx, result.location);
    }
  });
}
