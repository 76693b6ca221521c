import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../../../proxy/app/connect/tools/claudeCode.ts';

const SETTINGS = { proxyUrl: 'http://127.0.0.1:8642', token: 'alk_connect_unit_token_0123456789' };
const BOM = '\uFEFF';

/** Windows editors save JSON and YAML with a byte order mark and CRLF line ends; the tools read both. */
describe('a config file saved with a byte order mark', () => {
  // Claude Code strips a leading BOM before it parses settings.json (the 2.1 binary's stripBom before
  // JSON and JSONC parsing), so such a file is valid for the tool and must be edited, not refused.
  it.each([
    ['Claude Code', claudeCodeAdapter, `${BOM}{\r\n  "model": "opus"\r\n}\r\n`],
    ['Claude Code', claudeCodeAdapter, `${BOM}{\n  // mine\n  "model": "opus",\n}\n`],
  ] as const)('%s: %j is edited, and keeps its mark and line ends', (_title, adapter, text) => {
    const written = adapter.connect({ config: text }, SETTINGS).config!;
    expect(written.startsWith(BOM)).toBe(true);
    expect(written.slice(1)).not.toContain(BOM);
    expect(written.includes('\r\n')).toBe(text.includes('\r\n'));
    expect(adapter.airlockToken({ config: written }, SETTINGS.proxyUrl)).toBe(SETTINGS.token);
  });
});
