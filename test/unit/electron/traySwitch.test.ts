import { describe, expect, it } from 'vitest';
import type { SwitchCheckResponse } from '../../../proxy/contracts/profileViews.ts';
import { switchFromTray, type TraySwitchDeps } from '../../../electron/logic/traySwitch.ts';
import type { SwitchWarning } from '../../../electron/logic/switchWarning.ts';

const quiet: SwitchCheckResponse = { profileId: 'backup', inFlight: 0, missingModels: [], modelListKnown: true, recentModels: [] };

function deps(overrides: Partial<TraySwitchDeps> = {}): TraySwitchDeps & { activated: string[]; asked: SwitchWarning[] } {
  const activated: string[] = [];
  const asked: SwitchWarning[] = [];
  return {
    activated,
    asked,
    profileName: (id) => (id === 'backup' ? 'Backup' : null),
    switchCheck: async () => quiet,
    confirm: async (warning) => {
      asked.push(warning);
      return false;
    },
    activate: async (id) => {
      activated.push(id);
    },
    ...overrides,
  };
}

describe('switchFromTray', () => {
  it('switches at once when nothing would break', async () => {
    const used = deps();
    expect(await switchFromTray('backup', used)).toEqual({ kind: 'switched' });
    expect(used.activated).toEqual(['backup']);
    expect(used.asked).toEqual([]);
  });

  it('asks first while streams run, tells that they finish on the current profile, and keeps it when cancelled', async () => {
    const used = deps({ switchCheck: async () => ({ ...quiet, inFlight: 2 }) });
    expect(await switchFromTray('backup', used)).toEqual({ kind: 'cancelled' });
    expect(used.asked[0]?.detail).toContain('2 requests in flight: they finish on the current profile');
    expect(used.activated).toEqual([]);
  });

  it('says the profile is gone when the CLI removed it after the menu was built, instead of failing silently', async () => {
    const used = deps({
      profileName: () => null,
      switchCheck: async () => {
        throw Object.assign(new Error('profile gone not found'), { name: 'NotFoundError' });
      },
    });
    expect(await switchFromTray('gone', used)).toEqual({
      kind: 'failed',
      title: 'Profile not switched',
      body: 'The profile "gone" no longer exists (it was removed outside this window, e.g. with `npx airlock profile`). The menu now lists the profiles as they are.',
    });
    expect(used.activated).toEqual([]);
  });

  it('tells why when writing the switch fails (the config file is broken or locked)', async () => {
    const used = deps({
      activate: async () => {
        throw new Error('airlock.json is not valid JSON; it was copied to airlock.json.broken');
      },
    });
    expect(await switchFromTray('backup', used)).toEqual({
      kind: 'failed',
      title: 'Profile not switched',
      body: 'Switching to Backup failed: airlock.json is not valid JSON; it was copied to airlock.json.broken',
    });
  });
});
