import { readFileSync, writeFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectFileError } from '../../../../proxy/app/connect/toolAdapter.ts';
import { namesAirlock } from '../../../../proxy/app/connect/toolsProxyBypass.ts';
import { aiderAdapter } from '../../../../proxy/app/connect/tools/aider.ts';
import { connectHarness, PROXY_URL, type ConnectHarness } from './connectHarness.ts';

const TOKEN = 'alk_aider_bypass_token_0123456789';
const PROXY = { HTTPS_PROXY: 'http://proxy.corp:3128' };
const SETTINGS = { proxyUrl: PROXY_URL, token: TOKEN, model: 'gpt-5' };
const setEnvIn = (text: string) => (parseYaml(text) as Record<string, unknown>)['set-env'];

/** The environment aider runs with: the shell's, then each `set-env` entry over it in order, as aider's main() applies them. */
function aiderEnvironment(shell: NodeJS.ProcessEnv, text: string): NodeJS.ProcessEnv {
  const environment = { ...shell };
  for (const entry of [setEnvIn(text) ?? []].flat() as string[]) {
    const at = entry.indexOf('=');
    environment[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return environment;
}

// aider's requests go litellm -> openai SDK -> httpx, which sends those for http://127.0.0.1:<port> to
// the environment's proxy unless NO_PROXY (no_proxy first, when both are set) names 127.0.0.1.
describe("aider: .aider.conf.yml set-env gets NO_PROXY and no_proxy naming 127.0.0.1 when connect's environment sets a proxy", () => {
  it.each<[string, NodeJS.ProcessEnv, string, unknown]>([
    ['no proxy where connect runs', { NO_PROXY: 'corp.example' }, '', undefined],
    ['a proxy, no NO_PROXY anywhere', PROXY, '', ['NO_PROXY=127.0.0.1', 'no_proxy=127.0.0.1']],
    [
      "the shell's NO_PROXY kept, for both names",
      { ...PROXY, NO_PROXY: 'localhost,.corp.example' },
      '',
      ['NO_PROXY=localhost,.corp.example,127.0.0.1', 'no_proxy=localhost,.corp.example,127.0.0.1'],
    ],
    [
      "the shell's lower-case no_proxy kept, for both names",
      { HTTP_PROXY: 'http://proxy.corp:3128', no_proxy: '.corp.example' },
      '',
      ['NO_PROXY=.corp.example,127.0.0.1', 'no_proxy=.corp.example,127.0.0.1'],
    ],
    [
      "set-env's own value before the shell's, in place, the user's other entries kept",
      { ...PROXY, no_proxy: 'shell.example' },
      'set-env:\n  - OPENAI_API_VERSION=2024-10-21\n  - NO_PROXY = settings.example\n',
      ['OPENAI_API_VERSION=2024-10-21', 'NO_PROXY=settings.example,127.0.0.1', 'no_proxy=shell.example,127.0.0.1'],
    ],
    [
      'the last entry of a name, the one aider applies',
      PROXY,
      'set-env:\n  - NO_PROXY=first.example\n  - NO_PROXY=last.example\n',
      ['NO_PROXY=first.example', 'NO_PROXY=last.example,127.0.0.1', 'no_proxy=127.0.0.1'],
    ],
    [
      'a single entry as a string',
      PROXY,
      'set-env: OPENAI_API_VERSION=2024-10-21\n',
      ['OPENAI_API_VERSION=2024-10-21', 'NO_PROXY=127.0.0.1', 'no_proxy=127.0.0.1'],
    ],
    [
      'entries naming it already are left',
      PROXY,
      'set-env: [NO_PROXY=*, "no_proxy=x,127.0.0.1:8642"]\n',
      ['NO_PROXY=*', 'no_proxy=x,127.0.0.1:8642'],
    ],
  ])('%s', (_name, env, config, expected) => {
    const written = aiderAdapter.connect({ config }, { ...SETTINGS, env }).config!;
    expect(setEnvIn(written)).toEqual(expected);
    expect(aiderAdapter.connect({ config: written }, { ...SETTINGS, env }).config).toBe(written);
    if (expected !== undefined) {
      const environment = aiderEnvironment({ ...env, no_proxy: env.no_proxy ?? 'localhost' }, written);
      expect([environment.NO_PROXY, environment.no_proxy].every((value) => namesAirlock(value ?? ''))).toBe(true);
    }
  });

  it('adds its entries as lines after the last one of a block list, every other byte kept', () => {
    const config = '# mine\nset-env:\n    -   OPENAI_API_VERSION=2024-10-21   # azure\n# after the list\ndark-mode: true\n';
    const written = aiderAdapter.connect({ config }, { ...SETTINGS, env: PROXY }).config!;
    expect(
      written.startsWith(
        '# mine\nset-env:\n    -   OPENAI_API_VERSION=2024-10-21   # azure\n    -   NO_PROXY=127.0.0.1\n    -   no_proxy=127.0.0.1\n# after the list\ndark-mode: true\n',
      ),
    ).toBe(true);
  });

  it('refuses a set-env that is neither an entry nor a list of them, only where it would add to it', () => {
    const config = 'set-env:\n  NO_PROXY: corp.example\n';
    const connect = () => aiderAdapter.connect({ config }, { ...SETTINGS, env: PROXY });
    expect(connect).toThrow(ConnectFileError);
    expect(connect).toThrow(/"set-env" is not a NAME=value entry or a list of them.*fix or move the file/);
    // Without a proxy nothing is added there: the file is connected as before, and its preview reads.
    expect(setEnvIn(aiderAdapter.connect({ config }, { ...SETTINGS, env: {} }).config as string)).toEqual({ NO_PROXY: 'corp.example' });
    expect(aiderAdapter.secretValues({ config })).toEqual([]);
    expect(aiderAdapter.proxyBypass?.({ config })).toEqual([]);
  });

  it('masks a secret among the set-env entries in the preview', () => {
    expect(
      aiderAdapter.secretValues({ config: 'set-env:\n  - AZURE_API_KEY=azure-secret-0123456789\n  - OPENAI_API_VERSION=2024-10-21\n' }),
    ).toEqual(['azure-secret-0123456789']);
  });
});

let harness: ConnectHarness | undefined;
afterEach(() => harness?.close());

describe("aider's bypass through the service", () => {
  const ORIGINAL = '# my options\ndark-mode: true\nset-env:\n  - AZURE_API_KEY=azure-secret-0123456789\n';

  it('the preview says what it writes and why, with the line in its diff and the secret beside it masked', async () => {
    harness = connectHarness({ ...PROXY, no_proxy: 'shell.example' });
    harness.writeHome('.aider.conf.yml', ORIGINAL);
    const plan = await harness.service.plan('aider', { model: 'gpt-5' });
    expect(plan.notes).toEqual([
      'Wrote set-env NO_PROXY=shell.example,127.0.0.1 and set-env no_proxy=shell.example,127.0.0.1 for aider: HTTPS_PROXY is set here, ' +
        'and without it aider sends its requests for Airlock, with the client token and your prompts, to that proxy, which cannot reach this computer.',
    ]);
    const diff = plan.changes[0]!.diff;
    expect(diff).toContain('+  - no_proxy=shell.example,127.0.0.1\n');
    expect(diff).not.toContain('azure-secret-0123456789');
  });

  it('undo gives back the file as it was, and keeps a later edit', async () => {
    harness = connectHarness(PROXY);
    const file = harness.writeHome('.aider.conf.yml', ORIGINAL);
    const applied = await harness.service.apply('aider', { model: 'gpt-5' });
    expect(applied.notes).toHaveLength(1);
    expect(setEnvIn(readFileSync(file, 'utf8'))).toEqual([
      'AZURE_API_KEY=azure-secret-0123456789',
      'NO_PROXY=127.0.0.1',
      'no_proxy=127.0.0.1',
    ]);
    await harness.service.undo('aider');
    expect(readFileSync(file, 'utf8')).toBe(ORIGINAL);

    await harness.service.apply('aider', { model: 'gpt-5' });
    writeFileSync(file, `# the user's later line\n${readFileSync(file, 'utf8')}`);
    await harness.service.undo('aider');
    expect(readFileSync(file, 'utf8')).toBe(`# the user's later line\n${ORIGINAL}`);
  });

  it('nothing is written or said without a proxy', async () => {
    harness = connectHarness({ NO_PROXY: 'corp.example' });
    const file = harness.writeHome('.aider.conf.yml', ORIGINAL);
    const applied = await harness.service.apply('aider', { model: 'gpt-5' });
    expect(applied.notes).toEqual([]);
    expect(setEnvIn(readFileSync(file, 'utf8'))).toEqual(['AZURE_API_KEY=azure-secret-0123456789']);
  });
});
