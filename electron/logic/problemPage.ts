import type { StartupProblemView } from './lifecycle.ts';

/**
 * The page the window shows when the proxy did not start. It is loaded as a data: URL because the
 * proxy's port may belong to another program whose pages the window must never load. No script.
 */
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

/** Backticked spans in the fix text become <code>. */
function withCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

export function problemPageHtml(view: StartupProblemView, productName: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(productName)}: ${escapeHtml(view.title)}</title>
<style>
:root { color-scheme: light dark; font: 15px/1.5 system-ui, sans-serif; }
body { max-width: 40rem; margin: 4rem auto; padding: 0 1.5rem; }
h1 { font-size: 1.4rem; } code { font-family: ui-monospace, monospace; }
.fix { border-left: 4px solid #d97706; padding: .5rem 1rem; background: rgba(217,119,6,.08); }
</style></head>
<body><main role="alert">
<h1>${escapeHtml(view.title)}</h1>
<p>${withCode(view.detail)}</p>
<p class="fix"><strong>Fix:</strong> ${withCode(view.fix)}</p>
</main></body></html>`;
}

export function problemPageDataUrl(view: StartupProblemView, productName: string): string {
  return `data:text/html;charset=utf-8,${encodeURIComponent(problemPageHtml(view, productName))}`;
}
