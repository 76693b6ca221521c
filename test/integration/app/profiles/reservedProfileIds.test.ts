import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../proxy/app/profiles/configParse.ts';
import type { TokenSecretResponse } from '../../../../proxy/contracts/clientTokens.ts';
import { CONTROL_TOKEN_ACCOUNT } from '../../../../proxy/contracts/secretStore.ts';
import { chatBody, JSON_HEADERS, rawRequest } from '../../../support/http.ts';
import { CONTROL_TOKEN, startControlHarness, type ControlHarness } from '../../../support/controlHarness.ts';

let harness: ControlHarness;

beforeAll(async () => {
  // The gateway "accepts" the control token only so the test sees whether it was ever sent as a key.
  harness = await startControlHarness({ simulator: { validKeys: [CONTROL_TOKEN] } });
});
afterAll(() => harness.close());

/**
 * A profile's single key is the keychain account named by the profile id, and the window's control
 * token lives in the account `control-token`: a profile with that id would share it.
 */
describe('a profile id that names another secret of the keychain', () => {
  it('is refused, so no request goes to a gateway with the control token as its key', async () => {
    const created = await harness.api('/profiles', {
      method: 'POST',
      body: JSON.stringify({ id: CONTROL_TOKEN_ACCOUNT, name: 'Control', baseUrl: harness.simulator.baseUrl }),
    });
    if (created.status === 201) {
      await harness.json(`/profiles/${CONTROL_TOKEN_ACCOUNT}/activate`, { method: 'POST' });
      const { token } = await harness.json<TokenSecretResponse>('/tokens', { method: 'POST', body: JSON.stringify({ name: 'agent' }) });
      await harness.keys.refresh(CONTROL_TOKEN_ACCOUNT);
      await rawRequest(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        body: chatBody(),
      });
    }
    expect(harness.simulator.received.filter((request) => request.authOk)).toEqual([]);
    expect(created.status).toBe(400);
    expect(await created.text()).toContain('reserved');
  });

  it('is refused in a hand-edited airlock.json, with its line', () => {
    const text = JSON.stringify({
      version: 1,
      profiles: [{ id: CONTROL_TOKEN_ACCOUNT, name: 'Control', baseUrl: 'https://gw.example/v1' }],
    });
    const parsed = parseConfigText(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.message).toContain('reserved');
  });
});
