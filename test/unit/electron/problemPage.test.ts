import { describe, expect, it } from 'vitest';
import { escapeHtml, problemPageDataUrl, problemPageHtml } from '../../../electron/logic/problemPage.ts';

const view = { title: 'Port 8642 is taken', detail: 'Another <b>program</b> is listening.', fix: 'Run `lsof -i :8642` & stop it.' };

describe('problemPage', () => {
  it.each([
    ['<script>', '&lt;script&gt;'],
    [`"a" & 'b'`, '&quot;a&quot; &amp; &#39;b&#39;'],
    ['plain', 'plain'],
  ])('escapes %j', (text, expected) => {
    expect(escapeHtml(text)).toBe(expected);
  });

  it('shows the title, the detail and the fix, escaped, with code spans', () => {
    const html = problemPageHtml(view, 'Airlock');
    expect(html).toContain('<h1>Port 8642 is taken</h1>');
    expect(html).toContain('Another &lt;b&gt;program&lt;/b&gt; is listening.');
    expect(html).toContain('<code>lsof -i :8642</code> &amp; stop it.');
  });

  it('carries no script and forbids any', () => {
    const html = problemPageHtml(view, 'Airlock');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('round-trips through the data: URL', () => {
    const url = problemPageDataUrl(view, 'Airlock');
    expect(url.startsWith('data:text/html;charset=utf-8,')).toBe(true);
    expect(decodeURIComponent(url.slice('data:text/html;charset=utf-8,'.length))).toBe(problemPageHtml(view, 'Airlock'));
  });
});
