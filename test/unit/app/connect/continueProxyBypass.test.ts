import { readFileSync, writeFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectFileError } from '../../../../proxy/app/connect/toolAdapter.ts';
import { continueAdapter } from '../../../../proxy/app/connect/tools/continueDev.ts';
import { connectHarness, PROXY_URL, type ConnectHarness } from './connectHarness.ts';

const TOKEN = 'alk_continue_bypass_token_0123456789';
/** A config whose one model already goes through Airlock, with `options` as the entry's last lines. */
const withAirlockModel = (options: string) =>
  `name: Local\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: Via Airlock  # mine\n    provider: openai\n    model: gpt-5\n    apiBase: ${PROXY_URL}/v1\n    apiKey: ${TOKEN}\n${options}`;
const requestOptionsIn = (text: string) => (parseYaml(text) as { models: { requestOptions?: unknown }[] }).models[0]!.requestOptions;

// cn sends its requests for Airlock to the environment's HTTP_PROXY unless the model's noProxy (or
// NO_PROXY) names 127.0.0.1 (probe T, session 29): connect writes it on Airlock's entries, merged.
describe("Continue's model through Airlock gets requestOptions.noProxy naming 127.0.0.1", () => {
  it.each<[string, string, unknown]>([
    ['no requestOptions', '', { noProxy: ['127.0.0.1'] }],
    ['requestOptions without noProxy', '    requestOptions:\n      timeout: 30\n', { timeout: 30, noProxy: ['127.0.0.1'] }],
    ['a noProxy list of the user', '    requestOptions:\n      noProxy: [corp.example]\n', { noProxy: ['corp.example', '127.0.0.1'] }],
    ['a list naming it already', '    requestOptions:\n      noProxy: [127.0.0.1]\n', { noProxy: ['127.0.0.1'] }],
    ['a list with *', '    requestOptions:\n      noProxy: ["*"]\n', { noProxy: ['*'] }],
  ])('%s', (_name, options, expected) => {
    const config = withAirlockModel(options);
    const written = continueAdapter.connect({ config, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN }).config!;
    expect(requestOptionsIn(written)).toEqual(expected);
    // Added as one line: the rest of the file, comments and spacing included, stays as it was.
    if (options === '') expect(written).toBe(`${config}    requestOptions: {noProxy: [127.0.0.1]}\n`);
    expect(continueAdapter.connect({ config: written, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN }).config).toBe(written);
  });

  it('refuses requestOptions that is not a mapping, or a noProxy that is not a list', () => {
    for (const options of ['    requestOptions: fast\n', '    requestOptions:\n      noProxy: 127.0.0.2\n']) {
      expect(() =>
        continueAdapter.connect({ config: withAirlockModel(options), legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN }),
      ).toThrow(ConnectFileError);
    }
  });

  it('leaves the models that do not go through Airlock alone', () => {
    const config = `${withAirlockModel('')}  - name: Local\n    provider: ollama\n    model: llama3\n`;
    const written = continueAdapter.connect({ config, legacy: null }, { proxyUrl: PROXY_URL, token: TOKEN }).config!;
    expect((parseYaml(written) as { models: { requestOptions?: unknown }[] }).models[1]!.requestOptions).toBeUndefined();
  });
});

let harness: ConnectHarness;
beforeEach(() => {
  harness = connectHarness();
});
afterEach(() => harness.close());

describe("Continue's noProxy through the service", () => {
  it('says what it wrote, and undo takes out only what connect added after the user edited the file', async () => {
    const file = harness.writeHome('.continue/config.yaml', withAirlockModel('    requestOptions:\n      noProxy: [corp.example]\n'));
    const applied = await harness.service.apply('continue');
    expect(applied.notes).toEqual([
      expect.stringMatching(/^Wrote models\[0\]\.requestOptions\.noProxy=corp\.example,127\.0\.0\.1 for Continue: so that a proxy/),
    ]);
    writeFileSync(file, `${readFileSync(file, 'utf8')}# the user's later line\n`);
    await harness.service.undo('continue');
    expect(requestOptionsIn(readFileSync(file, 'utf8'))).toEqual({ noProxy: ['corp.example'] });
  });

  it('undo removes requestOptions it created', async () => {
    const file = harness.writeHome('.continue/config.yaml', withAirlockModel(''));
    await harness.service.apply('continue');
    expect(requestOptionsIn(readFileSync(file, 'utf8'))).toEqual({ noProxy: ['127.0.0.1'] });
    writeFileSync(file, `${readFileSync(file, 'utf8')}# the user's later line\n`);
    await harness.service.undo('continue');
    expect(requestOptionsIn(readFileSync(file, 'utf8'))).toBeUndefined();
  });
});
