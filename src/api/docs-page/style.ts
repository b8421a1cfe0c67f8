// The reference page's only stylesheet, inline and allowed by its CSP hash: no scripts, no external
// assets, nothing fetched by the page at all.
import { createHash } from 'node:crypto';

export const DOCS_STYLE = `
:root { color-scheme: light; --ink: #1a1f36; --muted: #5b6275; --line: #dde1e8; --bg: #f6f7fa; --code-bg: #f0f2f6;
  --accent: #1f4fd1; --get: #067647; --post: #1f4fd1; --warn: #93370d; --warn-bg: #fef0c7; }
* { box-sizing: border-box; }
html { scroll-behavior: smooth; }
body { margin: 0; background: #fff; color: var(--ink); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
code { background: var(--code-bg); border-radius: 4px; padding: 1px 4px; overflow-wrap: anywhere; }
pre { background: #10162f; color: #e6e9f2; border-radius: 8px; padding: 12px 14px; overflow: auto; max-height: 480px; }
pre code { background: none; padding: 0; color: inherit; }
.top { padding: 20px 28px; border-bottom: 1px solid var(--line); background: var(--bg); }
.top h1 { margin: 0; font-size: 24px; }
.top p { margin: 4px 0 0; color: var(--muted); }
.layout { display: grid; grid-template-columns: 280px minmax(0, 1fr); }
nav { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow: auto; padding: 20px 16px 40px 28px; border-right: 1px solid var(--line); font-size: 14px; }
nav h2 { margin: 16px 0 6px; padding: 0; border: 0; font-size: 12px; letter-spacing: .06em; text-transform: uppercase; color: var(--muted); }
nav ul { list-style: none; margin: 0; padding: 0; }
nav li { margin: 2px 0; }
nav a { text-decoration: none; color: var(--ink); display: block; padding: 2px 0; }
nav a:hover { color: var(--accent); }
main { padding: 8px 36px 80px; max-width: 1100px; }
main > section { padding-top: 16px; }
h2 { font-size: 22px; margin: 32px 0 8px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 18px; margin: 28px 0 8px; }
h4 { font-size: 14px; margin: 18px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.operation { border: 1px solid var(--line); border-radius: 10px; padding: 4px 20px 16px; margin: 20px 0; }
.operation h3 { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.method { display: inline-block; min-width: 48px; text-align: center; border-radius: 4px; padding: 1px 6px; color: #fff; font-size: 12px; font-weight: 700; }
.method.get { background: var(--get); }
.method.post { background: var(--post); }
.meta { color: var(--muted); font-size: 14px; }
.notice { background: var(--warn-bg); color: var(--warn); border-radius: 6px; padding: 6px 10px; }
table { width: 100%; border-collapse: collapse; margin: 6px 0 12px; font-size: 14px; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: 6px 8px; }
th { background: var(--bg); font-weight: 600; }
td.name { white-space: nowrap; }
.req { color: var(--warn); font-size: 12px; font-weight: 600; }
.constraints { color: var(--muted); font-size: 13px; }
details { margin: 6px 0; }
summary { cursor: pointer; font-weight: 600; }
tr:target, article:target, h3:target { background: #fff6d6; }
@media (max-width: 860px) { .layout { grid-template-columns: 1fr; } nav { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); } main { padding: 8px 16px 60px; } }
`;

const STYLE_SOURCE = `'sha256-${createHash('sha256').update(DOCS_STYLE).digest('base64')}'`;

/** Headers of the reference page: only its own stylesheet may apply, nothing may run or load. */
export function docsSecurityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_SOURCE}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  };
}
