import { describe, expect, it } from 'vitest';
import { aiderAdapter } from '../../../../proxy/app/connect/tools/aider.ts';
import { claudeCodeAdapter } from '../../../../proxy/app/connect/tools/claudeCode.ts';

const SETTINGS = { proxyUrl: 'http://127.0.0.1:8642', token: 'alk_connect_unit_token_0123456789' };
const BOM = '\uFEFF';

/** Windows editors save JSON and YAML with a byte order mark and CRLF line ends; the tools read both. */
describe('a config file saved with a byte order mark', () => {
  // Claude Code strips a leading BOM before it parses settings.json (the 2.1 binary's stripBom before
  // JSON and JSONC parsing), so such a file is valid for the tool and must be edited, not refused.
  it.each([
    ['with CRLF line ends', `${BOM}{\r\n  "model": "opus"\r\n}\r\n`],
    ['with a comment and a trailing comma', `${BOM}{\n  // mine\n  "model": "opus",\n}\n`],
  ])("Claude Code's settings.json %s is edited, and keeps its mark and line ends", (_layout, text) => {
    const adapter = claudeCodeAdapter;
    const written = adapter.connect({ config: text }, SETTINGS).config!;
    expect(written.startsWith(BOM)).toBe(true);
    expect(written.slice(1)).not.toContain(BOM);
    expect(written.includes('\r\n')).toBe(text.includes('\r\n'));
    expect(adapter.airlockToken({ config: written }, SETTINGS.proxyUrl)).toBe(SETTINGS.token);
  });
});

/**
 * aider's sample .aider.conf.yml is long, commented, and often aligned or hand-wrapped; a setup
 * changes the values of its own options and appends the missing ones, and nothing else.
 */
describe('aider: every line Airlock does not own stays byte for byte', () => {
  const longCommand = `python: flake8 --select=E9,F821,F823,F831,F406,F407,F701,F702,F704,F706 --show-source --isolated`;

  it('in a CRLF file with a byte order mark, aligned values and a long line', () => {
    const original = [
      `${BOM}# my aider options`,
      'dark-mode:       true   # aligned',
      `lint-cmd: "${longCommand}"`,
      "read: ['CONVENTIONS.md', 'docs/STYLE.md']",
      'openai-api-base: https://gw.example.com/v1 # old gateway',
      'openai-api-key:',
      '',
    ].join('\r\n');
    const written = aiderAdapter.connect({ config: original }, { ...SETTINGS, model: 'deepseek-chat' }).config;
    expect(written).toBe(
      [
        `${BOM}# my aider options`,
        'dark-mode:       true   # aligned',
        `lint-cmd: "${longCommand}"`,
        "read: ['CONVENTIONS.md', 'docs/STYLE.md']",
        'openai-api-base: http://127.0.0.1:8642/v1 # old gateway',
        `openai-api-key: ${SETTINGS.token}`,
        'model: openai/deepseek-chat',
        '',
      ].join('\r\n'),
    );
  });

  it('in a file without a last line end, and one holding only comments', () => {
    expect(aiderAdapter.connect({ config: 'dark-mode: true' }, SETTINGS).config).toBe(
      `dark-mode: true\nopenai-api-base: http://127.0.0.1:8642/v1\nopenai-api-key: ${SETTINGS.token}\n`,
    );
    expect(aiderAdapter.connect({ config: '#model: xxx\n' }, SETTINGS).config).toBe(
      `#model: xxx\nopenai-api-base: http://127.0.0.1:8642/v1\nopenai-api-key: ${SETTINGS.token}\n`,
    );
  });

  it('quotes a model id YAML would read as something else', () => {
    const written = aiderAdapter.connect({ config: '' }, { ...SETTINGS, model: 'x #1' }).config!;
    expect(written).toContain('model: "openai/x #1"');
  });
});
