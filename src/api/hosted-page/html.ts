// The page frame shared by every hosted-page response: escaping, one inline stylesheet (allowed by
// its CSP hash, so no nonce and no external assets), and the security headers that go with it.
import { createHash } from 'node:crypto';
import { documentStart, escapeHtml } from '../../web/html';


const STYLE = `
:root { color-scheme: light; --ink: #1a1f36; --muted: #5b6275; --line: #d5dae3; --accent: #1f4fd1; --accent-dark: #173da3;
  --bg: #f3f5f9; --error: #b42318; --error-bg: #fef3f2; --ok: #067647; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; padding: 32px 16px; background: var(--bg); color: var(--ink);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 440px; margin: 0 auto; background: #fff; border: 1px solid var(--line); border-radius: 14px;
  box-shadow: 0 10px 30px rgba(26, 31, 54, 0.08); overflow: hidden; }
header { padding: 24px 28px 20px; border-bottom: 1px solid var(--line); }
.merchant { margin: 0; font-size: 15px; font-weight: 600; color: var(--muted); display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.badge { font-size: 11px; font-weight: 700; letter-spacing: .06em; text-transform: uppercase; color: #93370d;
  background: #fef0c7; border-radius: 999px; padding: 2px 8px; }
.amount { margin: 6px 0 0; color: var(--ink); font-size: 32px; font-weight: 700; line-height: 1.2; font-variant-numeric: tabular-nums; }
.description { margin: 4px 0 0; color: var(--muted); overflow-wrap: anywhere; }
.content { padding: 24px 28px 28px; }
h1 { margin: 0 0 12px; font-size: 20px; line-height: 1.3; }
h2 { margin: 0 0 8px; font-size: 15px; }
p { margin: 0 0 16px; color: var(--muted); }
.billing { margin: 0 0 20px; padding: 12px 16px; background: var(--bg); border-radius: 10px; }
.billing dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 16px; margin: 0; font-size: 14px; }
.billing dt { color: var(--muted); }
.billing dd { margin: 0; overflow-wrap: anywhere; }
.field { margin: 0 0 16px; }
.row { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
label { display: block; margin: 0 0 6px; font-size: 14px; font-weight: 600; }
input { width: 100%; min-height: 44px; padding: 10px 12px; font: inherit; color: var(--ink); background: #fff;
  border: 1px solid #b9c0cc; border-radius: 8px; }
input:focus { outline: 3px solid rgba(31, 79, 209, .25); border-color: var(--accent); }
input[aria-invalid="true"] { border-color: var(--error); background: var(--error-bg); }
.hint { margin: 4px 0 0; font-size: 13px; color: var(--muted); }
.field-error { margin: 6px 0 0; font-size: 14px; font-weight: 600; color: var(--error); }
.alert { margin: 0 0 20px; padding: 12px 16px; border: 1px solid #fda29b; border-radius: 10px; background: var(--error-bg); color: var(--ink); }
.alert h2 { color: var(--error); }
.alert ul { margin: 0; padding-left: 20px; }
.alert a { color: var(--error); }
.alert p { margin: 0; color: var(--ink); }
.alert ul + p { margin-top: 8px; }
button, .button { display: block; width: 100%; min-height: 48px; padding: 12px 16px; border: 0; border-radius: 8px;
  background: var(--accent); color: #fff; font: inherit; font-size: 17px; font-weight: 700; text-align: center;
  text-decoration: none; cursor: pointer; }
button:hover, .button:hover { background: var(--accent-dark); }
button:focus-visible, .button:focus-visible, a:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.secure { display: flex; align-items: center; justify-content: center; gap: 6px; margin: 16px 0 0; font-size: 13px; color: var(--muted); }
.secure svg { flex: none; }
.status { display: block; margin: 0 0 16px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); border: 0; white-space: nowrap; }
@media (max-width: 420px) { header, .content { padding-left: 20px; padding-right: 20px; } .amount { font-size: 28px; } }
`;

/** The CSP source that allows exactly this stylesheet. */
export const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

const LOCK_ICON = '<svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 1a5 5 0 0 0-5 5v4H6a2 2 0 0 0-2 2v9a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-9a2 2 0 0 0-2-2h-1V6a5 5 0 0 0-5-5Zm-3 9V6a3 3 0 1 1 6 0v4H9Z"/></svg>';

export const SECURE_NOTE = `<p class="secure">${LOCK_ICON}<span>Secure payment. Your card details are encrypted and never shared with the merchant.</span></p>`;

export interface PageHeading {
  merchantName: string;
  /** Already formatted for its currency. */
  amount: string;
  description: string | null;
  testMode: boolean;
}

/** The merchant and amount above every page of a known payment, so the shopper knows where they are. */
export function pageHeader(heading: PageHeading): string {
  const badge = heading.testMode ? ' <span class="badge">Test mode</span>' : '';
  const description = heading.description ? `\n<p class="description">${escapeHtml(heading.description)}</p>` : '';
  return `<header>
<p class="merchant"><span>${escapeHtml(heading.merchantName)}</span>${badge}</p>
<p class="amount">${escapeHtml(heading.amount)}</p>${description}
</header>`;
}

export function layout(title: string, body: string): string {
  return `${documentStart(title, STYLE, '\n<meta name="robots" content="noindex, nofollow">')}
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * Headers of every hosted page. No script may run; only this stylesheet applies; the form may post
 * to this service and, because browsers check `form-action` on the redirects that follow a form
 * submission too, to the origins the POST redirects to (the 3DS page, the merchant's return page).
 */
export function pageSecurityHeaders(formActionOrigins: readonly string[] = []): Record<string, string> {
  const formAction = ["'self'", ...new Set(formActionOrigins)].join(' ');
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_SOURCE}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    // The hosted token is in the URL: never send it to another site.
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
}
