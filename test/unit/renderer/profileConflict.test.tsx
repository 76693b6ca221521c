// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import type { ProfileListResponse } from '../../../proxy/contracts/profileViews.ts';
import { ApiProvider } from '../../../renderer/src/api/ApiContext.tsx';
import { type ControlClient, ControlApiError } from '../../../renderer/src/api/client.ts';
import { ProfileEditor } from '../../../renderer/src/profiles/ProfileEditor.tsx';

afterEach(cleanup);

function clientWith(methods: Partial<ControlClient>): ControlClient {
  return new Proxy(methods as ControlClient, {
    get: (target, name: string) => target[name as keyof ControlClient] ?? (() => Promise.reject(new Error(`unexpected call ${name}`))),
  });
}

/**
 * The proxy refuses a profile save (409) when a field the user changed was changed elsewhere since
 * the form was filled (`airlock profile …`, a hand edit of airlock.json), and tells the user to
 * reload the profile: the form must offer that reload, not leave the user to find one.
 */
describe('a profile save refused because the profile changed elsewhere', () => {
  it('offers to reload the profile, and the reload fills the form with what the file now holds', async () => {
    const filled = profileSchema.parse({ id: 'main', name: 'Main gateway', baseUrl: 'https://gateway.example/v1' });
    const changedByCli = { ...filled, name: 'Main (renamed by the CLI)', budget: { ...filled.budget, dailyCredits: 50 } };
    const profiles = vi.fn(
      async (): Promise<ProfileListResponse> => ({
        profiles: [{ profile: changedByCli, active: true, key: { set: true, source: 'keychain' } as never }],
        activeProfileId: 'main',
        keychain: { available: true, message: null },
      }),
    );
    const updateProfile = vi.fn(async () => {
      throw new ControlApiError(
        409,
        'conflict',
        'name of profile "main" changed elsewhere (the CLI, airlock.json or another window) since the form was filled: reload the profile, then make the change again',
      );
    });
    render(
      <ApiProvider client={clientWith({ profiles, updateProfile })}>
        <ProfileEditor existing={filled} onSaved={() => undefined} />
      </ApiProvider>,
    );
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Main, edited in the window' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save profile' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/changed elsewhere/);

    fireEvent.click(screen.getByRole('button', { name: 'Reload the profile' }));
    await vi.waitFor(() => expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('Main (renamed by the CLI)'));
    expect((screen.getByLabelText('Daily cap') as HTMLInputElement).value).toBe('50');
    expect(screen.queryByRole('alert')).toBeNull();
    // The button pressed is gone: focus goes to the form's first field, not to the page's start.
    expect(document.activeElement).toBe(screen.getByLabelText('Name'));
  });
});
