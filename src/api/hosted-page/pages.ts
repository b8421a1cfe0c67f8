// The hosted payment page and its status pages. Pure functions from a view model to HTML; the
// route sets the status code and headers.
import type { BillingDetails } from '../../domain/payment';
import type { FieldErrors, SafeFormValues } from '../../domain/hosted-page';
import { escapeHtml } from '../../web/html';
import { SECURE_NOTE, layout, pageHeader, type PageHeading } from './html';

export interface CheckoutFormView {
  heading: PageHeading;
  billing: BillingDetails | null;
  values?: SafeFormValues;
  errors?: FieldErrors;
  /** A problem with the attempt as a whole (the bank could not be reached), not with one field. */
  notice?: string;
}

interface InputSpec {
  name: keyof FieldErrors;
  label: string;
  autocomplete: string;
  value?: string;
  hint?: string;
  numeric?: boolean;
  maxLength: number;
  placeholder?: string;
}

function input(spec: InputSpec, errors: FieldErrors): string {
  const error = errors[spec.name];
  const describedBy = [spec.hint ? `${spec.name}-hint` : null, error ? `${spec.name}-error` : null].filter(Boolean).join(' ');
  const attributes = [
    `id="${spec.name}"`,
    `name="${spec.name}"`,
    'type="text"',
    spec.numeric ? 'inputmode="numeric"' : null,
    `autocomplete="${spec.autocomplete}"`,
    `maxlength="${spec.maxLength}"`,
    spec.placeholder ? `placeholder="${escapeHtml(spec.placeholder)}"` : null,
    'spellcheck="false"',
    'required',
    describedBy ? `aria-describedby="${describedBy}"` : null,
    error ? 'aria-invalid="true"' : null,
    spec.value ? `value="${escapeHtml(spec.value)}"` : null,
  ].filter(Boolean).join(' ');
  const hint = spec.hint ? `\n<p class="hint" id="${spec.name}-hint">${escapeHtml(spec.hint)}</p>` : '';
  const message = error ? `\n<p class="field-error" id="${spec.name}-error"><span class="visually-hidden">Error: </span>${escapeHtml(error)}</p>` : '';
  return `<div class="field">
<label for="${spec.name}">${escapeHtml(spec.label)}</label>
<input ${attributes}>${hint}${message}
</div>`;
}

function errorSummary(errors: FieldErrors): string {
  const items = Object.entries(errors).map(([name, message]) => `<li><a href="#${name}">${escapeHtml(message)}</a></li>`);
  if (items.length === 0) return '';
  return `<div class="alert" role="alert">
<h2>Check your card details</h2>
<ul>
${items.join('\n')}
</ul>
<p>For your security, enter the card number and security code again.</p>
</div>
`;
}

function noticeBox(notice: string | undefined): string {
  if (!notice) return '';
  return `<div class="alert" role="alert">
<h2>Your payment was not completed</h2>
<p>${escapeHtml(notice)}</p>
</div>
`;
}

export function fullName(billing: BillingDetails | null): string {
  return [billing?.first_name, billing?.last_name].filter((part) => part && part.trim()).join(' ').trim();
}

function billingSummary(billing: BillingDetails | null): string {
  if (!billing) return '';
  const address = billing.address
    ? [billing.address.line1, [billing.address.postal_code, billing.address.city].filter(Boolean).join(' '), billing.address.country].filter(Boolean).join(', ')
    : '';
  const rows = [['Name', fullName(billing)], ['Email', billing.email ?? ''], ['Phone', billing.phone ?? ''], ['Address', address]]
    .filter(([, value]) => value)
    .map(([label, value]) => `<dt>${label}</dt><dd>${escapeHtml(value!)}</dd>`);
  if (rows.length === 0) return '';
  return `<section class="billing" aria-labelledby="billing-title">
<h2 id="billing-title">Billing details</h2>
<dl>
${rows.join('\n')}
</dl>
</section>
`;
}

/** The card form. Posts to its own URL (no action attribute), so it works without JavaScript. */
export function renderCheckoutForm(view: CheckoutFormView): string {
  const errors = view.errors ?? {};
  const name = view.values?.cardholder_name ?? fullName(view.billing);
  const body = `${pageHeader(view.heading)}
<div class="content">
<h1>Pay with card</h1>
${noticeBox(view.notice)}${errorSummary(errors)}${billingSummary(view.billing)}<form method="post" novalidate>
${input({ name: 'card_number', label: 'Card number', autocomplete: 'cc-number', numeric: true, maxLength: 23, placeholder: '1234 1234 1234 1234' }, errors)}
<div class="row">
${input({ name: 'exp', label: 'Expiry date', autocomplete: 'cc-exp', numeric: true, maxLength: 9, placeholder: 'MM/YY', hint: 'Month and year, MM/YY', value: view.values?.exp }, errors)}
${input({ name: 'cvc', label: 'Security code', autocomplete: 'cc-csc', numeric: true, maxLength: 4, placeholder: 'CVC', hint: '3 or 4 digits' }, errors)}
</div>
${input({ name: 'cardholder_name', label: 'Name on card', autocomplete: 'cc-name', maxLength: 255, value: name }, errors)}
<button type="submit">Pay ${escapeHtml(view.heading.amount)}</button>
</form>
${SECURE_NOTE}
</div>`;
  return layout(`Pay ${view.heading.amount} to ${view.heading.merchantName}`, body);
}

export type StatusTone = 'success' | 'pending' | 'problem';

export interface StatusPageView {
  /** Absent when the payment itself is unknown. */
  heading?: PageHeading;
  tone: StatusTone;
  title: string;
  message: string;
  link?: { href: string; text: string };
}

const ICONS: Record<StatusTone, string> = {
  success: '<svg class="status" width="44" height="44" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="12" cy="12" r="11" fill="#067647"/><path d="m7 12.5 3.2 3.2L17 9" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  pending: '<svg class="status" width="44" height="44" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="12" cy="12" r="11" fill="#1f4fd1"/><path d="M12 6.5V12l3.5 2.5" fill="none" stroke="#fff" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  problem: '<svg class="status" width="44" height="44" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><circle cx="12" cy="12" r="11" fill="#b42318"/><path d="M12 6.5v7M12 17.2v.3" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/></svg>',
};

/** Every page that is not the form: completed, processing, declined, expired, not found, errors. */
export function renderStatusPage(view: StatusPageView): string {
  const link = view.link ? `\n<a class="button" href="${escapeHtml(view.link.href)}">${escapeHtml(view.link.text)}</a>` : '';
  const body = `${view.heading ? `${pageHeader(view.heading)}\n` : ''}<div class="content">
${ICONS[view.tone]}
<h1>${escapeHtml(view.title)}</h1>
<p>${escapeHtml(view.message)}</p>${link}
</div>`;
  return layout(view.title, body);
}
