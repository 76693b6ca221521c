import { readFileSync, writeFileSync } from 'node:fs';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDotenv } from '../../../../proxy/app/connect/dotenvFile.ts';
import { claudeCodeAdapter } from '../../../../proxy/app/connect/tools/claudeCode.ts';
import { codexAdapter } from '../../../../proxy/app/connect/tools/codex.ts';
import { connectHarness, PROXY_URL, type ConnectHarness } from './connectHarness.ts';

const TOKEN = 'alk_no_proxy_unit_token_0123456789';
const PROXY = { HTTPS_PROXY: 'http://proxy.corp:3128' };

// Probe T (session 29): with a proxy variable set, Claude Code and Codex send their requests for
// http://127.0.0.1:<port> to the proxy unless NO_PROXY names 127.0.0.1. Connect writes it into the
// tool's own env when its own environment has a proxy, keeping the entries the tool or shell has.
describe('Claude Code: settings.json env gets NO_PROXY and no_proxy naming 127.0.0.1 when a proxy is set', () => {
  it.each<[string, NodeJS.ProcessEnv, Record<string, string>, Record<string, string | undefined>]>([
    ['no proxy where connect runs', { NO_PROXY: 'corp.example' }, {}, { NO_PROXY: undefined, no_proxy: undefined }],
    ['a proxy, no NO_PROXY anywhere', PROXY, {}, { NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1' }],
    [
      "the shell's NO_PROXY kept, for both names",
      { ...PROXY, NO_PROXY: 'localhost,.corp.example' },
      {},
      { NO_PROXY: 'localhost,.corp.example,127.0.0.1', no_proxy: 'localhost,.corp.example,127.0.0.1' },
    ],
    [
      "each name from the shell's own",
      { ...PROXY, NO_PROXY: 'a.example', no_proxy: 'b.example' },
      {},
      { NO_PROXY: 'a.example,127.0.0.1', no_proxy: 'b.example,127.0.0.1' },
    ],
    [
      'space-separated entries, written with commas',
      { ...PROXY, no_proxy: 'a.example b.example' },
      {},
      { NO_PROXY: 'a.example,b.example,127.0.0.1', no_proxy: 'a.example,b.example,127.0.0.1' },
    ],
    [
      "settings' own value before the shell's",
      { ...PROXY, NO_PROXY: 'shell.example' },
      { NO_PROXY: 'settings.example' },
      { NO_PROXY: 'settings.example,127.0.0.1', no_proxy: 'shell.example,127.0.0.1' },
    ],
    [
      'a settings value naming it already is left',
      PROXY,
      { NO_PROXY: '*', no_proxy: 'x,127.0.0.1:8642' },
      { NO_PROXY: '*', no_proxy: 'x,127.0.0.1:8642' },
    ],
    [
      'a shell value naming it is written too',
      { ...PROXY, NO_PROXY: 'localhost,127.0.0.1' },
      {},
      { NO_PROXY: 'localhost,127.0.0.1', no_proxy: 'localhost,127.0.0.1' },
    ],
  ])('%s', (_name, env, settingsEnv, expected) => {
    const config = JSON.stringify({ env: { ...settingsEnv, DISABLE_TELEMETRY: '1' } }, null, 2);
    const written = claudeCodeAdapter.connect({ config }, { proxyUrl: PROXY_URL, token: TOKEN, env }).config!;
    const writtenEnv = (parseJsonc(written) as { env: Record<string, string> }).env;
    expect({ NO_PROXY: writtenEnv.NO_PROXY, no_proxy: writtenEnv.no_proxy }).toEqual(expected);
    expect(writtenEnv.DISABLE_TELEMETRY).toBe('1');
  });
});

describe('Codex: $CODEX_HOME/.env gets NO_PROXY naming 127.0.0.1 when a proxy is set', () => {
  it.each<[string, NodeJS.ProcessEnv, string | null, string | undefined]>([
    ['no proxy where connect runs', { NO_PROXY: 'corp.example' }, null, undefined],
    ['a proxy, no NO_PROXY anywhere', { HTTP_PROXY: 'http://proxy.corp:3128' }, null, '127.0.0.1'],
    [
      "the shell's lower-case no_proxy kept",
      { ALL_PROXY: 'http://p:1', no_proxy: '.corp.example,[::1]' },
      null,
      '.corp.example,[::1],127.0.0.1',
    ],
    [
      ".env's own value before the shell's",
      { ...PROXY, NO_PROXY: 'shell.example' },
      '# mine\nNO_PROXY=*.env.example\n',
      '*.env.example,127.0.0.1',
    ],
    ['a .env value naming it is left', PROXY, 'NO_PROXY=127.0.0.1\n', '127.0.0.1'],
  ])('%s', (_name, env, dotenv, expected) => {
    const written = codexAdapter.connect({ config: null, env: dotenv }, { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5', env }).env!;
    expect(parseDotenv(written).get('NO_PROXY')).toBe(expected);
    if (dotenv?.startsWith('# mine')) expect(written.startsWith('# mine\n')).toBe(true);
  });
});

let harness: ConnectHarness | undefined;
afterEach(() => harness?.close());

describe('connect says what it wrote, and undo puts the values back after later edits', () => {
  it('Claude Code', async () => {
    harness = connectHarness({ ...PROXY, no_proxy: 'shell.example' });
    const file = harness.writeHome('.claude/settings.json', JSON.stringify({ env: { NO_PROXY: 'internal.example' } }));
    const applied = await harness.service.apply('claude-code', { model: 'claude-sonnet-4-5' });
    expect(applied.notes).toEqual([
      'Wrote env.NO_PROXY=internal.example,127.0.0.1 and env.no_proxy=shell.example,127.0.0.1 for Claude Code: HTTPS_PROXY is set here, ' +
        'and without it Claude Code sends its requests for Airlock, with the client token and your prompts, to that proxy, which cannot reach this computer.',
    ]);
    // Claude Code rewrites settings.json as it runs (a permission approved): undo goes setting by setting.
    const settings = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...settings, permissions: { allow: ['Bash(ls)'] } }, null, 2));
    await harness.service.undo('claude-code');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ env: { NO_PROXY: 'internal.example' }, permissions: { allow: ['Bash(ls)'] } });
  });

  it('Codex', async () => {
    harness = connectHarness({ HTTP_PROXY: 'http://proxy.corp:3128' });
    const file = harness.writeHome('.codex/.env', 'OTHER=1\n');
    const applied = await harness.service.apply('codex', { model: 'gpt-5' });
    expect(applied.notes).toEqual([expect.stringMatching(/^Wrote NO_PROXY=127\.0\.0\.1 in \.env for Codex CLI: HTTP_PROXY is set here/)]);
    writeFileSync(file, `${readFileSync(file, 'utf8')}LATER=2\n`);
    await harness.service.undo('codex');
    expect(readFileSync(file, 'utf8')).toBe('OTHER=1\nLATER=2\n');
  });

  it('nothing is written or said without a proxy', async () => {
    harness = connectHarness({ NO_PROXY: 'corp.example' });
    const applied = await harness.service.apply('codex', { model: 'gpt-5' });
    expect(applied.notes).toEqual([]);
    expect(parseDotenv(readFileSync(`${harness.homeDir}/.codex/.env`, 'utf8')).has('NO_PROXY')).toBe(false);
  });
});
