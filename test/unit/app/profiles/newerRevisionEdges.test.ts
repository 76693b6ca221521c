import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../proxy/app/profiles/configParse.ts';
import { CONFIG_REVISION } from '../../../../proxy/contracts/config.ts';

/** A file with one misspelt setting (`notification` for `notifications`) at the revision given as JSON text. */
const misspelt = (revisionJson: string) => `{ "version": 1, "configRevision": ${revisionJson}, "settings": { "notification": false } }`;

describe('a configRevision no Airlock writes (a typo, a hand edit)', () => {
  // 1e400 reads as Infinity, which a save wrote back as null: the file no longer loaded at all.
  it.each(['1.5', '1e20', '1e400'])('%s does not make the file a newer one: a misspelt field is refused as before', (revision) => {
    const parsed = parseConfigText(misspelt(revision));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain('configRevision');
  });

  it('a whole number above this revision still does (what a newer Airlock writes)', () => {
    const parsed = parseConfigText(misspelt(String(CONFIG_REVISION + 1)));
    expect(parsed.ok && parsed.newer?.paths).toEqual([['settings', 'notification']]);
  });
});

describe('a value a newer Airlock takes and this one refuses, in a field with no default', () => {
  const file = (profile: Record<string, unknown>) =>
    JSON.stringify({
      version: 1,
      configRevision: CONFIG_REVISION + 1,
      profiles: [{ id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1', ...profile }],
    });

  // Left out, the cap or price was gone for the roll-back: the profile spent without its cap, or its
  // model's input counted at no price (DESIGN "Updates and roll-backs" says the file is refused, naming it).
  it.each([
    ['a daily cap of 0', { budget: { dailyCredits: 0, monthlyCredits: 50 } }, 'profiles[0].budget.dailyCredits'],
    [
      'a tiered input price',
      { prices: [{ model: 'gpt-4o', inputPer1M: { upTo200k: 1.25 }, outputPer1M: 10 }] },
      'profiles[0].prices[0].inputPer1M',
    ],
  ])('%s refuses the file, naming the field, rather than run without it', (_name, profile, named) => {
    const parsed = parseConfigText(file(profile));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(named);
  });
});

describe('a value a newer Airlock takes and this one refuses, in a field that prices spend', () => {
  // A gateway priced in small units (quota points) needs a multiplier above this one's bound of 1000:
  // run at the default 1, the profile's spend counted a 5000th of itself, and its caps never came.
  it('refuses the file, naming it, rather than run on the default', () => {
    const parsed = parseConfigText(
      JSON.stringify({
        version: 1,
        configRevision: CONFIG_REVISION + 1,
        profiles: [{ id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1', priceMultiplier: 5000, budget: { dailyCredits: 20 } }],
      }),
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toContain('profiles[0].priceMultiplier');
    // Not only "at most 1000": lowered here to load, the newer Airlock would count a fifth after the update.
    expect(parsed.message).toContain(`a newer Airlock wrote this file, revision ${CONFIG_REVISION + 1}`);
    expect(parsed.message).toContain('update Airlock');
  });

  it('prices in a shape this one does not take (keyed by model) refuse the file too, rather than run as none', () => {
    const parsed = parseConfigText(
      JSON.stringify({
        version: 1,
        configRevision: CONFIG_REVISION + 1,
        profiles: [{ id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1', prices: { 'gpt-4o': { inputPer1M: 2.5 } } }],
      }),
    );
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain('profiles[0].prices');
  });
});

describe("a key typed into a newer Airlock's field whose name is no key's", () => {
  const newerFile = (settings: Record<string, unknown>) => JSON.stringify({ version: 1, configRevision: CONFIG_REVISION + 1, settings });

  // A file of this revision refuses it ("holds no secret"); in a newer one it loaded, and every save kept it.
  it.each([
    ['as the field', { futureCollectorAuth: 'Bearer sk-typed-into-the-file-0123456789' }, 'settings.futureCollectorAuth'],
    ['inside it', { futureCollector: { auth: ['sk-typed-into-the-file-0123456789'] } }, 'settings.futureCollector.auth[0]'],
    // One of Airlock's own client tokens (the keychain's; the file keeps its hash).
    [
      'as a client token',
      { futureSync: { lastUsed: `alk_${'typedClientToken0'.repeat(3).slice(0, 43)}` } },
      'settings.futureSync.lastUsed',
    ],
  ])('is refused %s, and not repeated', (_where, settings, named) => {
    const parsed = parseConfigText(newerFile(settings));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toContain(named);
    expect(parsed.message).toContain('holds no secret');
    expect(parsed.message).not.toMatch(/sk-typed|typedClientToken/);
  });

  it('a hash there is no key: the file loads (a newer token record may well hold one, as tokenSha256 does)', () => {
    const parsed = parseConfigText(newerFile({ futureTokenSha256: 'ab'.repeat(32) }));
    expect(parsed.ok && parsed.newer?.paths).toEqual([['settings', 'futureTokenSha256']]);
  });
});
