import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../../proxy/app/profiles/configParse.ts';
import { fileTreeOf } from '../../../../proxy/app/profiles/newerFields.ts';
import { CONFIG_REVISION, type ConfigFile } from '../../../../proxy/contracts/config.ts';

const price = (model: string) => ({ model, inputPer1M: 1, outputPer1M: 2 });

/** The file a newer Airlock wrote, with a field of its own on the price of `gpt-4o` only. */
function newerFile(): { config: ConfigFile; newer: NonNullable<Extract<ReturnType<typeof parseConfigText>, { ok: true }>['newer']> } {
  const text = JSON.stringify({
    version: 1,
    configRevision: CONFIG_REVISION + 1,
    profiles: [
      {
        id: 'work',
        name: 'Work',
        baseUrl: 'https://gw.example/v1',
        prices: [{ ...price('gpt-4o'), futureBatchDiscount: 0.5 }, price('gpt-4o-mini')],
        modelRoutes: [
          { pattern: 'claude-*', target: 'gpt-4o' },
          { pattern: 'o3*', target: 'gpt-4o-mini', futureOnlyFor: 'codex' },
        ],
      },
    ],
  });
  const parsed = parseConfigText(text);
  if (!parsed.ok || parsed.newer === null) throw new Error('not a newer file');
  return { config: parsed.config, newer: parsed.newer };
}

type Rows = Record<string, unknown>[];

describe("a newer Airlock's fields on items that have no id or name, at a save", () => {
  it('stay with the item they were on when an edit removes one before it, and go with one the edit removes', () => {
    const { config, newer } = newerFile();
    const profile = config.profiles[0];
    if (profile === undefined) throw new Error('no profile');
    // Removed here: the gpt-4o price and the claude-* route, in the window's price table and route list.
    profile.prices = profile.prices.filter((row) => row.model !== 'gpt-4o');
    profile.modelRoutes = profile.modelRoutes.filter((route) => route.pattern !== 'claude-*');
    const saved = fileTreeOf(config, newer).profiles[0] as unknown as { prices: Rows; modelRoutes: Rows };
    // The discount was gpt-4o's: given to gpt-4o-mini, the newer Airlock would charge it at half price.
    expect(saved.prices).toEqual([price('gpt-4o-mini')]);
    expect(saved.modelRoutes).toEqual([{ pattern: 'o3*', target: 'gpt-4o-mini', futureOnlyFor: 'codex' }]);
  });
});

describe('a value a newer Airlock takes and this one refuses (a roll-back), in a file of a later revision', () => {
  const file = (revision: number) =>
    JSON.stringify({
      version: 1,
      configRevision: revision,
      profiles: [
        {
          id: 'work',
          name: 'Work',
          baseUrl: 'https://gw.example/v1',
          // A fourth mode the newer Airlock added, and a timeout above this one's bound of 1 h.
          protocolModes: { messages: 'passthrough', responses: 'native' },
          timeouts: { idleTimeoutMs: 7_200_000 },
        },
      ],
    });

  it('is used as its default here, named, and kept through a save unless the save changed it', () => {
    const parsed = parseConfigText(file(CONFIG_REVISION + 1));
    if (!parsed.ok) throw new Error(parsed.message);
    const profile = parsed.config.profiles[0];
    expect(profile?.protocolModes).toEqual({ messages: 'auto', responses: 'native' });
    expect(profile?.timeouts.idleTimeoutMs).toBe(300_000);
    expect(parsed.newer?.values.map((value) => value.path)).toEqual([
      ['profiles', 0, 'protocolModes', 'messages'],
      ['profiles', 0, 'timeouts', 'idleTimeoutMs'],
    ]);
    const edited = structuredClone(parsed.config);
    const editedProfile = edited.profiles[0];
    if (editedProfile === undefined) throw new Error('no profile');
    // Changed here: this one's choice is the file's now.
    editedProfile.timeouts.idleTimeoutMs = 600_000;
    const saved = fileTreeOf(edited, parsed.newer).profiles[0];
    expect(saved?.protocolModes.messages).toBe('passthrough');
    expect(saved?.timeouts.idleTimeoutMs).toBe(600_000);
  });

  it('is refused where it holds a key, as a field typed in would be', () => {
    const typed = JSON.parse(file(CONFIG_REVISION + 1)) as Record<string, unknown>;
    typed.settings = { notifications: 'Bearer sk-typed-into-the-file-0123456789' };
    const parsed = parseConfigText(JSON.stringify(typed));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toContain('settings.notifications');
    expect(parsed.message).toContain('holds no secret');
    expect(parsed.message).not.toContain('sk-typed');
  });

  it("is refused as before in a file of this Airlock's revision, where it is a mistake", () => {
    const parsed = parseConfigText(file(CONFIG_REVISION));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain('profiles[0].protocolModes.messages');
  });
});
