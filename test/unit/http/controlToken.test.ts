import { describe, expect, it } from 'vitest';
import { createControlTokenCheck, loadControlToken } from '../../../proxy/http/controlToken.ts';
import { createClientAuthenticator } from '../../../proxy/http/clientAuthenticator.ts';
import { generateToken, tokenRecord } from '../../../proxy/http/clientTokens.ts';
import { emptyConfig } from '../../../proxy/contracts/config.ts';
import { addClientToken } from '../../../proxy/app/profiles/configMutations.ts';
import { memorySecretStore, unavailableSecretStore } from '../../support/memorySecretStore.ts';

describe('control token', () => {
  it('is generated once and kept in the keychain', async () => {
    const secrets = memorySecretStore();
    const first = await loadControlToken(secrets);
    const second = await loadControlToken(secrets);
    expect(first).toEqual({ token: expect.stringMatching(/^alkc_[A-Za-z0-9_-]{43}$/), persisted: true });
    expect(second.token).toBe(first.token);
    expect(secrets.entries.get('control-token')).toBe(first.token);
  });

  it('lives for this run only without a keychain', async () => {
    const loaded = await loadControlToken(unavailableSecretStore());
    expect(loaded.persisted).toBe(false);
    expect(loaded.token).toMatch(/^alkc_/);
  });

  it('a client token never opens the control API, and the control token is never a client token', async () => {
    const { token: controlToken } = await loadControlToken(memorySecretStore());
    const clientToken = generateToken();
    const config = addClientToken(emptyConfig(), tokenRecord('cursor', clientToken, null, 1));
    const checkControl = createControlTokenCheck(controlToken);
    const authenticator = createClientAuthenticator({ snapshot: () => config });

    expect(checkControl(`Bearer ${controlToken}`)).toBe(true);
    expect(checkControl(`Bearer ${clientToken}`)).toBe(false);
    expect(checkControl(undefined)).toBe(false);
    expect(checkControl(controlToken)).toBe(false);
    expect(checkControl(`Bearer ${controlToken.slice(0, -1)}`)).toBe(false);
    expect(authenticator.authenticate({ authorization: `Bearer ${clientToken}` })).toMatchObject({ tokenName: 'cursor' });
    expect(authenticator.authenticate({ authorization: `Bearer ${controlToken}` })).toMatchObject({ status: 401 });
  });
});
