// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import type { ProfileListResponse } from '../../../proxy/contracts/profileViews.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import type { ControlClient } from '../../../renderer/src/api/client.ts';
import { ProfilesScreen } from '../../../renderer/src/profiles/ProfilesScreen.tsx';

afterEach(cleanup);

function clientWith(methods: Partial<ControlClient>): ControlClient {
  return new Proxy(methods as ControlClient, {
    get: (target, name: string) => target[name as keyof ControlClient] ?? (() => Promise.reject(new Error(`unexpected call ${name}`))),
  });
}

/**
 * A key the keychain has not given (an unlock prompt still open, a locked keyring, one account
 * refused) may well be there: the window says it was not read, not that there is none, which
 * would send the user to type a key that is stored (and whose save meets the same keychain).
 */
describe('a profile whose key the keychain has not given', () => {
  it('is not marked "no key" or "Not set"', async () => {
    const list: ProfileListResponse = {
      profiles: [
        {
          profile: profileSchema.parse({ id: 'main', name: 'Main gateway', baseUrl: 'https://gateway.example/v1' }),
          active: true,
          key: { set: false, lastFour: null, unread: true },
        },
      ],
      activeProfileId: 'main',
      keychain: { available: false, message: 'the keychain did not answer within 30 s (an unlock prompt may be open)' },
    };
    render(
      <ApiProvider client={clientWith({ profiles: async () => list, prices: async () => ({ prices: [], priceMultiplier: 1 }) })}>
        <ProfilesScreen activeProfileId="main" onChanged={() => undefined} keychainProblem={list.keychain.message} />
      </ApiProvider>,
    );
    const entry = await screen.findByRole('button', { name: /Main gateway/ });
    expect(entry.textContent).not.toContain('no key');
    expect(entry.textContent).toContain('key not read');
    fireEvent.click(entry);
    expect((await screen.findByTestId('key-status')).textContent).toMatch(/^Not read yet/);
  });
});

describe('a pooled key the keychain has not given', () => {
  it('is not called missing from the keychain', async () => {
    const { describePoolKeyState } = await import('../../../renderer/src/profiles/KeyPoolField.tsx');
    const said = describePoolKeyState({ state: 'unread' });
    expect(said).not.toContain('not in the keychain');
    expect(said).toMatch(/^not read yet/);
  });
});

describe('the Profiles screen when the keychain answers again', () => {
  it('reads the profiles again: the keychain note and "key not read" go once the keys are read', async () => {
    const profile = profileSchema.parse({ id: 'main', name: 'Main gateway', baseUrl: 'https://gateway.example/v1' });
    const unreadList: ProfileListResponse = {
      profiles: [{ profile, active: true, key: { set: false, lastFour: null, unread: true } }],
      activeProfileId: 'main',
      keychain: { available: false, message: 'the OS keychain did not answer within 30 s' },
    };
    const readList: ProfileListResponse = {
      profiles: [{ profile, active: true, key: { set: true, lastFour: 'a8c1' } }],
      activeProfileId: 'main',
      keychain: { available: true, message: null },
    };
    let keychainAnswered = false;
    const client = clientWith({ profiles: async () => (keychainAnswered ? readList : unreadList) });
    const { rerender } = render(
      <ApiProvider client={client}>
        <ProfilesScreen activeProfileId="main" onChanged={() => undefined} keychainProblem="the OS keychain did not answer within 30 s" />
      </ApiProvider>,
    );
    await screen.findByText(/key not read/);
    // The keys are read again: the status the window is sent loses its keychain alarm.
    keychainAnswered = true;
    rerender(
      <ApiProvider client={client}>
        <ProfilesScreen activeProfileId="main" onChanged={() => undefined} keychainProblem={null} />
      </ApiProvider>,
    );
    await waitFor(() => expect(screen.queryByText(/key not read/)).toBeNull());
    expect(screen.queryByText(/did not answer/)).toBeNull();
  });
});
