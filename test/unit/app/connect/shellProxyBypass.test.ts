import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectHarness, type ConnectHarness } from './connectHarness.ts';

// Probe C (session 31) with Cline's CLI 3.0.65 and OpenCode 1.18.33, both on Bun: with HTTP_PROXY or
// http_proxy set, each sends its requests for http://127.0.0.1:<port> to the proxy unless the exception it
// reads (no_proxy when set, else NO_PROXY) names 127.0.0.1, and no file of theirs holds an exception. So
// connect writes none for them and says what to set in the shell instead, when its own environment has a
// proxy the start warning would name.
const PROXY = 'http://proxy.corp:3128';

let harness: ConnectHarness | undefined;
afterEach(() => harness?.close());

describe('Cline CLI and OpenCode: connect says what to set in the shell, as neither reads an exception from a file', () => {
  it('Cline CLI: both names, each keeping its entries, and its hub daemon to stop', async () => {
    harness = connectHarness({ HTTPS_PROXY: PROXY, no_proxy: 'localhost,.corp.example' });
    const plan = await harness.service.plan('cline', { model: 'gpt-4o-mini' });
    const expected =
      'Cline CLI reads no proxy exception from its own files, so connect wrote none: with HTTP_PROXY or http_proxy set where it runs, ' +
      'it sends its requests for Airlock, with the client token and your prompts, to that proxy, which cannot reach this computer. ' +
      'Set NO_PROXY=localhost,.corp.example,127.0.0.1 and no_proxy=localhost,.corp.example,127.0.0.1 in the shell you start it from, ' +
      'then run `cline hub stop` there, since its hub daemon keeps the environment it started in ' +
      '(here HTTPS_PROXY is set and no_proxy and NO_PROXY do not name 127.0.0.1).';
    expect(plan.notes).toEqual([expected]);
    const applied = await harness.service.apply('cline', { model: 'gpt-4o-mini' });
    expect(applied.notes).toEqual([expected]);
    const written = readFileSync(path.join(harness.homeDir, '.cline/data/settings/providers.json'), 'utf8');
    expect(written).not.toMatch(/proxy/i);
  });

  it('OpenCode: the shell alone', async () => {
    harness = connectHarness({ HTTP_PROXY: PROXY, NO_PROXY: '.corp.example' });
    const applied = await harness.service.apply('opencode', { model: 'gpt-4o-mini' });
    expect(applied.notes).toEqual([
      'OpenCode reads no proxy exception from its own files, so connect wrote none: with HTTP_PROXY or http_proxy set where it runs, ' +
        'it sends its requests for Airlock, with the client token and your prompts, to that proxy, which cannot reach this computer. ' +
        'Set NO_PROXY=.corp.example,127.0.0.1 and no_proxy=.corp.example,127.0.0.1 in the shell you start it from ' +
        '(here HTTP_PROXY is set and no_proxy and NO_PROXY do not name 127.0.0.1).',
    ]);
  });

  // What each probed tool did with these: direct, direct, direct, through the proxy.
  it.each<[string, NodeJS.ProcessEnv, boolean]>([
    ['no proxy where connect runs', { NO_PROXY: 'corp.example' }, false],
    ['NO_PROXY names 127.0.0.1', { HTTP_PROXY: PROXY, NO_PROXY: 'localhost,127.0.0.1' }, false],
    ['no_proxy names 127.0.0.1', { HTTP_PROXY: PROXY, no_proxy: '127.0.0.1' }, false],
    ['no_proxy, read first, does not', { HTTP_PROXY: PROXY, NO_PROXY: '127.0.0.1', no_proxy: 'localhost' }, true],
  ])('%s', async (_name, env, said) => {
    harness = connectHarness(env);
    for (const tool of ['cline', 'opencode'] as const) {
      const applied = await harness.service.apply(tool, { model: 'gpt-4o-mini' });
      expect(applied.notes).toHaveLength(said ? 1 : 0);
    }
  });
});
