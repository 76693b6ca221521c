import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectFileError } from '../../../../proxy/app/connect/toolAdapter.ts';
import { aiderAdapter } from '../../../../proxy/app/connect/tools/aider.ts';
import { connectHarness, PROXY_URL, type ConnectHarness } from './connectHarness.ts';

const TOKEN = 'alk_aider_block_token_0123456789';
const SETTINGS = { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' };
const PROXY = { HTTPS_PROXY: 'http://proxy.corp:3128' };
const NOTES = 'notes: |\n  first line\n  second line\n';
const optionsIn = (text: string) => parseYaml(text) as Record<string, unknown>;

// A block scalar (`|`, `>-`) runs to the line end after its last line: a value written over it must
// keep that line end, or the next option joins its line and the file no longer reads.
describe('aider: a .aider.conf.yml holding block scalars connects, their text kept', () => {
  it.each<[string, string, string]>([
    ['model as a literal block', 'model: |\n  gpt-4o\ndark-mode: true\n', 'model: openai/gpt-5\ndark-mode: true\n'],
    ['model as a folded block, stripped', 'model: >-\n  gpt-4o\ndark-mode: true\n', 'model: openai/gpt-5\ndark-mode: true\n'],
    [
      'the comment on its header line kept',
      'model: >- # mine\n  gpt-4o\n\n# next\ndark-mode: true\n',
      'model: openai/gpt-5 # mine\n\n# next\ndark-mode: true\n',
    ],
    ['kept trailing lines (`|+`) are the value', 'model: |+\n  gpt-4o\n\n\ndark-mode: true\n', 'model: openai/gpt-5\ndark-mode: true\n'],
    ['CRLF line ends', 'model: |\r\n  gpt-4o\r\ndark-mode: true\r\n', 'model: openai/gpt-5\r\ndark-mode: true\r\n'],
    ['the last line without a line end', 'dark-mode: true\nmodel: |\n  gpt-4o', 'dark-mode: true\nmodel: openai/gpt-5'],
  ])('%s', (_name, original, modelPart) => {
    const config = `openai-api-base: >-\n  https://gateway.example/v1\nopenai-api-key: |\n  sk-mine-0123456789\n${NOTES}${original}`;
    const written = aiderAdapter.connect({ config }, { ...SETTINGS, env: {} }).config!;
    expect(written).toBe(`openai-api-base: http://127.0.0.1:8642/v1\nopenai-api-key: ${TOKEN}\n${NOTES}${modelPart}`);
    expect(optionsIn(written)).toMatchObject({ notes: 'first line\nsecond line\n', model: 'openai/gpt-5' });
    expect(aiderAdapter.connect({ config: written }, { ...SETTINGS, env: {} }).config).toBe(written);
  });

  it('adds its set-env entries after a list whose items are block scalars, those kept', () => {
    const config = `set-env:\n  - |\n    OPENAI_API_VERSION=2024-10-21\n  - >-\n    AZURE_API_BASE=https://azure.example\n${NOTES}`;
    const written = aiderAdapter.connect({ config }, { ...SETTINGS, env: PROXY }).config!;
    expect(written.startsWith(`${config.slice(0, -NOTES.length)}  - NO_PROXY=127.0.0.1\n  - no_proxy=127.0.0.1\n${NOTES}`)).toBe(true);
  });

  it("writes over the user's NO_PROXY entry in place when it is a block scalar, every other byte kept", () => {
    const config = `set-env:\n  - >-\n    NO_PROXY=corp.example\n  - A=1\n${NOTES}dark-mode: true    # eyes\n`;
    const written = aiderAdapter.connect({ config }, { ...SETTINGS, env: PROXY }).config!;
    expect(
      written.startsWith(
        `set-env:\n  - NO_PROXY=corp.example,127.0.0.1\n  - A=1\n  - no_proxy=127.0.0.1\n${NOTES}dark-mode: true    # eyes\n`,
      ),
    ).toBe(true);
  });

  // aider reads set-env through configargparse, whose YAML parser passes any value but a list as
  // one string (str(value)), given as one `--set-env=<value>` (bw2/ConfigArgParse configargparse.py,
  // YAMLConfigFileParser.parse and convert_item_to_command_line_arg, v1.7.5 as aider pins); aider's
  // main() splits that at its first `=` (Aider-AI/aider aider/main.py). So a one-line block is one
  // entry, and one of several lines sets its first name to all the rest.
  it('a set-env block of one line is that one entry: written as a list with it first', () => {
    const config = `set-env: >-\n  OPENAI_API_VERSION=2024-10-21\n${NOTES}`;
    const written = aiderAdapter.connect({ config }, { ...SETTINGS, env: PROXY }).config!;
    expect(written.startsWith(`set-env: [OPENAI_API_VERSION=2024-10-21, NO_PROXY=127.0.0.1, no_proxy=127.0.0.1]\n${NOTES}`)).toBe(true);
  });

  it('refuses a set-env block of several lines where it would add to it, saying what to change', () => {
    const config = `set-env: |\n  OPENAI_API_VERSION=2024-10-21\n  AZURE_API_KEY=azure-secret-0123456789\n${NOTES}`;
    const connect = () => aiderAdapter.connect({ config }, { ...SETTINGS, env: PROXY });
    expect(connect).toThrow(ConnectFileError);
    expect(connect).toThrow(/"set-env" is one text of several lines.*OPENAI_API_VERSION set to everything after.*- NAME=value/);
    expect(connect).not.toThrow(/azure-secret/);
    // A first line that is no NAME= (a pasted key) is not said either.
    const pasted = `set-env: |\n  sk-pasted-0123456789\n  A=1\n`;
    expect(() => aiderAdapter.connect({ config: pasted }, { ...SETTINGS, env: PROXY })).toThrow(/single entry \(one variable at most\)/);
    expect(() => aiderAdapter.connect({ config: pasted }, { ...SETTINGS, env: PROXY })).not.toThrow(/sk-pasted/);
    // Without a proxy nothing is added to it: the rest connects, the block untouched.
    const written = aiderAdapter.connect({ config }, { ...SETTINGS, env: {} }).config!;
    expect(written.startsWith(config)).toBe(true);
  });
});

let harness: ConnectHarness | undefined;
afterEach(() => harness?.close());

describe("aider's block scalars through the service", () => {
  const ORIGINAL = `# mine\nmodel: >-\n  gpt-4o\nopenai-api-key: |\n  sk-mine-0123456789\n${NOTES}set-env:\n  - |\n    A=1\n`;

  it('applies, and undo gives back the file byte for byte', async () => {
    harness = connectHarness(PROXY);
    const file = harness.writeHome('.aider.conf.yml', ORIGINAL);
    await harness.service.apply('aider', { model: 'gpt-5' });
    const written = readFileSync(file, 'utf8');
    expect(optionsIn(written)).toMatchObject({
      model: 'openai/gpt-5',
      'openai-api-key': expect.stringMatching(/^alk_/),
      notes: 'first line\nsecond line\n',
      'set-env': ['A=1\n', 'NO_PROXY=127.0.0.1', 'no_proxy=127.0.0.1'],
    });
    await harness.service.undo('aider');
    expect(readFileSync(file, 'utf8')).toBe(ORIGINAL);
  });
});
