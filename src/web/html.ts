// The HTML building blocks every server-rendered page shares (hosted page, docs, sandbox 3DS pages):
// escaping and the document head. Each page brings its own inline stylesheet and body.

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** `<!doctype html>` through `<body>`: viewport, no referrer, the title and one inline stylesheet. */
export function documentStart(title: string, style: string, extraHead = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">${extraHead}
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>`;
}
