import { describe, expect, it } from 'vitest';
import { traySwitchWarning } from '../../../electron/logic/switchWarning.ts';
import type { SwitchCheckResponse } from '../../../proxy/contracts/profileViews.ts';

const check = (overrides: Partial<SwitchCheckResponse>): SwitchCheckResponse => ({
  profileId: 'backup',
  inFlight: 0,
  recentModels: [],
  missingModels: [],
  modelListKnown: true,
  ...overrides,
});

describe("the tray's warning before a profile switch", () => {
  it('says nothing when nothing is in flight and every recent model is listed', () => {
    expect(traySwitchWarning(check({ recentModels: ['gpt-4o'] }), 'Backup')).toBeNull();
  });

  it.each<[string, Partial<SwitchCheckResponse>, string[]]>([
    [
      'requests in flight',
      { inFlight: 2 },
      ["2 requests in flight: they finish on the current profile, but the agents' next requests go to Backup."],
    ],
    [
      'models the new gateway does not list, with the id they would be sent as',
      {
        recentModels: ['gpt-4o', 'fast'],
        missingModels: [
          { requested: 'gpt-4o', upstream: 'gpt-4o' },
          { requested: 'fast', upstream: 'gpt-4o-mini' },
        ],
      },
      ["Backup's gateway does not list 2 models", 'model_not_found: gpt-4o, fast (sent as gpt-4o-mini).'],
    ],
    [
      'a model list that could not be fetched',
      { recentModels: ['gpt-4o'], modelListKnown: false },
      ["Backup's model list could not be fetched", '(gpt-4o)'],
    ],
  ])('warns about %s', (_name, overrides, expected) => {
    const warning = traySwitchWarning(check(overrides), 'Backup');
    expect(warning?.message).toBe('Switch to Backup now?');
    expect(warning?.buttons).toEqual(['Switch anyway', 'Cancel']);
    for (const text of expected) expect(warning?.detail).toContain(text);
  });

  it('names every problem at once', () => {
    const warning = traySwitchWarning(
      check({ inFlight: 1, missingModels: [{ requested: 'o3', upstream: 'o3' }], recentModels: ['o3'] }),
      'Backup',
    );
    expect(warning?.detail.split('\n\n')).toHaveLength(2);
    expect(warning?.detail).toContain('1 request in flight');
  });
});
