// HTML of the sandbox 3D Secure pages: self-contained (inline CSS, one nonce'd inline script on
// the device step), readable without JavaScript, and plain forms so tests can POST them directly.
import { documentStart, escapeHtml } from '../../web/html';
import type { AuthorizationRecord } from './state';

const STYLE = `
:root { color-scheme: light; --ink: #1a1f36; --muted: #4f566b; --line: #d8dde6; --accent: #2848c8; --bg: #f4f6fa; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center;
  background: var(--bg); color: var(--ink); font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { width: min(420px, calc(100vw - 32px)); background: #fff; border: 1px solid var(--line); border-radius: 12px;
  padding: 28px; box-shadow: 0 8px 24px rgba(26, 31, 54, 0.08); }
.issuer { margin: 0 0 4px; font-size: 13px; font-weight: 600; letter-spacing: .04em; text-transform: uppercase; color: var(--muted); }
h1 { margin: 0 0 16px; font-size: 22px; line-height: 1.3; }
p { margin: 0 0 16px; color: var(--muted); }
dl { display: grid; grid-template-columns: auto 1fr; gap: 6px 16px; margin: 0 0 24px; padding: 16px; background: var(--bg); border-radius: 8px; }
dt { color: var(--muted); }
dd { margin: 0; text-align: right; font-weight: 600; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.actions { display: flex; gap: 12px; flex-wrap: wrap; }
button, .link { flex: 1 1 140px; min-height: 44px; padding: 10px 16px; border-radius: 8px; font: inherit; font-weight: 600;
  cursor: pointer; border: 1px solid var(--accent); text-align: center; text-decoration: none; }
.primary { background: var(--accent); color: #fff; }
.secondary { background: #fff; color: var(--accent); }
button:focus-visible, .link:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.error { color: #b42318; font-weight: 600; }
.spinner { width: 32px; height: 32px; margin: 0 auto 16px; border: 3px solid var(--line); border-top-color: var(--accent);
  border-radius: 50%; animation: spin 0.9s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
.note { margin: 20px 0 0; font-size: 13px; }
`;


/** Minor units to a display amount, using the currency's own number of decimals. */
export function formatAmount(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${amount} ${currency}`;
  }
}

function layout(title: string, body: string, nonce?: string, script?: string): string {
  const scriptTag = nonce && script ? `\n<script nonce="${escapeHtml(nonce)}">${script}</script>` : '';
  return `${documentStart(title, STYLE)}
<main aria-labelledby="title">
<p class="issuer">Sandbox Bank &middot; 3D Secure</p>
${body}
<p class="note">This is a test page of the sandbox acquirer. No real card is charged.</p>
</main>${scriptTag}
</body>
</html>
`;
}

function summary(record: AuthorizationRecord): string {
  return `<dl>
<dt>Amount</dt><dd>${escapeHtml(formatAmount(record.amount, record.currency))}</dd>
<dt>Card</dt><dd>${escapeHtml(record.card.brand)} &bull;&bull;&bull;&bull; ${escapeHtml(record.card.last4)}</dd>
<dt>Reference</dt><dd>${escapeHtml(record.reference)}</dd>
</dl>`;
}

export function challengePage(record: AuthorizationRecord, action: string, error?: string): string {
  const message = error ? `<p class="error" role="alert">${escapeHtml(error)}</p>\n` : '';
  return layout('Confirm your payment', `<h1 id="title">Confirm your payment</h1>
${message}<p>Your bank asks you to confirm this payment.</p>
${summary(record)}
<form method="post" action="${escapeHtml(action)}" class="actions">
<button type="submit" name="outcome" value="authenticate" class="primary">Authenticate</button>
<button type="submit" name="outcome" value="fail" class="secondary">Fail</button>
</form>`);
}

export function devicePage(record: AuthorizationRecord, action: string, nonce: string): string {
  // Submits by itself once loaded; the button covers browsers without JavaScript.
  const script = "window.addEventListener('load',function(){setTimeout(function(){document.getElementById('device-form').submit();},300);});";
  return layout('Checking your device…', `<div class="spinner" aria-hidden="true"></div>
<h1 id="title">Checking your device…</h1>
<p role="status" aria-live="polite">Your bank is checking this device. This takes a moment.</p>
${summary(record)}
<form id="device-form" method="post" action="${escapeHtml(action)}" class="actions">
<input type="hidden" name="outcome" value="continue">
<button type="submit" class="primary">Continue</button>
</form>`, nonce, script);
}

export function gonePage(returnUrl: string | null): string {
  const link = returnUrl
    ? `\n<div class="actions"><a class="link primary" href="${escapeHtml(returnUrl)}">Return to the merchant</a></div>`
    : '';
  return layout('Authentication step no longer valid', `<h1 id="title">This authentication step is no longer valid</h1>
<p>It was already completed or replaced by a newer step. Return to the merchant to see the payment's status.</p>${link}`);
}

export function notFoundPage(): string {
  return layout('Not found', `<h1 id="title">Page not found</h1>
<p>There is no authentication at this address.</p>`);
}
