import { describe, expect, it } from 'vitest';
import { emptyConfig, type ConfigFile } from '../../../proxy/contracts/config.ts';
import { addProfile, setActiveProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { createTargetResolver } from '../../../proxy/app/targetResolver.ts';
import { EnvKeySource } from '../../../proxy/app/secrets/envKeySource.ts';
import type { UpstreamTarget } from '../../../proxy/contracts/ports.ts';
import { KeyPools } from '../../../proxy/spend/keyPool.ts';
import { KeychainNotAnsweringError, KeychainUnavailableError } from '../../../proxy/contracts/secretStore.ts';

const keys = { a: 'sk-key-for-profile-a-0001', b: 'sk-key-for-profile-b-0002' } as Record<string, string>;
const keySource = { getKeyForRequest: (profileId: string) => keys[profileId] ?? null };

function config(): ConfigFile {
  let next = addProfile(emptyConfig(), { id: 'a', name: 'A', baseUrl: 'https://a.example/v1' });
  next = addProfile(next, { id: 'b', name: 'B', baseUrl: 'https://b.example/v1' });
  return addProfile(next, { id: 'nokey', name: 'No key', baseUrl: 'https://n.example/v1' });
}

describe('createTargetResolver', () => {
  it.each([
    ['a following token uses the active profile', 'a', null, 'a'],
    ['a following token follows a switch', 'b', null, 'b'],
    ['a pinned token ignores the active profile', 'a', 'b', 'b'],
    ['a pinned token works with no active profile', null, 'b', 'b'],
  ])('%s', (_label, active, pinned, expectedProfile) => {
    const snapshot = setActiveProfile(config(), active);
    const target = createTargetResolver({ snapshot: () => snapshot }, keySource).resolve({ tokenName: 't', pinnedProfileId: pinned });
    expect(target).toMatchObject({ profile: { id: expectedProfile }, apiKey: keys[expectedProfile] });
  });

  it("asks the profile's key as it is now with one function for every request, not one made per request", () => {
    const snapshot = setActiveProfile(config(), 'a');
    const resolver = createTargetResolver({ snapshot: () => snapshot }, keySource);
    const first = resolver.resolve({ tokenName: 't', pinnedProfileId: null }) as UpstreamTarget;
    const second = resolver.resolve({ tokenName: 't', pinnedProfileId: 'b' }) as UpstreamTarget;
    expect(first.keyNow).toBe(second.keyNow);
    expect(first.keyNow?.(first.profile.id)).toBe(keys['a']);
    expect(second.keyNow?.(second.profile.id)).toBe(keys['b']);
  });

  it.each([
    ['no profile at all', () => emptyConfig(), null, 'no_profile', 'npx airlock profile add'],
    ['no active profile', () => setActiveProfile(config(), null), null, 'no_profile', 'npx airlock profile use'],
    ['a pin to a profile that is gone', () => config(), 'gone', 'no_profile', 'npx airlock profile use'],
    ['a profile without a key', () => setActiveProfile(config(), 'nokey'), null, 'no_key', 'npx airlock key set nokey'],
  ])('refuses %s, saying what to do', (_label, snapshot, pinned, code, hint) => {
    const refusal = createTargetResolver({ snapshot }, keySource).resolve({ tokenName: null, pinnedProfileId: pinned });
    expect(refusal).toMatchObject({ status: 403, errorClass: 'no_key', code });
    expect(refusal).toHaveProperty('message', expect.stringContaining(hint));
    expect(JSON.stringify(refusal)).not.toContain('sk-key');
  });

  it('a keychain that has not answered yet is a retryable 503 naming the cause, and asks the keychain again', () => {
    let rereads = 0;
    const snapshot = setActiveProfile(config(), 'nokey');
    const waiting = new KeychainNotAnsweringError(30_000);
    const source = {
      ...keySource,
      unreadProblem: (accounts: readonly string[]) => (accounts.includes('nokey') ? waiting : null),
      readUnreadAgain: () => {
        rereads += 1;
      },
    };
    const resolver = createTargetResolver({ snapshot: () => snapshot }, source);
    const refusal = resolver.resolve({ tokenName: null, pinnedProfileId: null });
    expect(refusal).toMatchObject({
      status: 503,
      errorClass: 'no_key',
      code: 'keychain_not_answering',
      headers: { 'retry-after': expect.any(String) },
    });
    expect(refusal).toHaveProperty('message', expect.stringContaining('did not answer within 30 s'));
    expect(rereads).toBe(1);
    // A profile whose key was read is served as before.
    expect(resolver.resolve({ tokenName: null, pinnedProfileId: 'a' })).toMatchObject({ apiKey: keys.a });
  });

  it('a keychain that gave an error for this profile says so, not that the key is missing', () => {
    const snapshot = setActiveProfile(config(), 'nokey');
    const source = {
      ...keySource,
      unreadProblem: (accounts: readonly string[]) =>
        accounts.includes('nokey') ? new KeychainUnavailableError('item access denied') : null,
      readUnreadAgain: () => undefined,
    };
    const refusal = createTargetResolver({ snapshot: () => snapshot }, source).resolve({ tokenName: null, pinnedProfileId: null });
    expect(refusal).toMatchObject({ status: 403, errorClass: 'no_key', code: 'no_key' });
    expect(refusal).toHaveProperty('message', expect.stringContaining('could not read the gateway key of profile "nokey": '));
    expect(refusal).toHaveProperty('message', expect.stringContaining('item access denied'));
  });

  it('a key from the environment serves only the profile it was given for', () => {
    const envKey = EnvKeySource.fromEnvironment({ AIRLOCK_API_KEY: ' "Bearer sk-env-key-0123456789"\n' }, 'nokey');
    const snapshot = setActiveProfile(config(), 'nokey');
    const resolver = createTargetResolver({ snapshot: () => snapshot }, keySource, envKey);
    expect(resolver.resolve({ tokenName: null, pinnedProfileId: null })).toMatchObject({
      apiKey: 'sk-env-key-0123456789',
      keyFromEnvironment: true,
    });
    // The breaker's fix for a rejected key depends on where the key came from.
    expect(resolver.resolve({ tokenName: null, pinnedProfileId: 'a' })).not.toHaveProperty('keyFromEnvironment');
  });

  it('a pool whose every key cools is refused, holding the profile so its fallback list may still answer', () => {
    const snapshot = setActiveProfile(config(), 'a');
    const pooled = {
      ...snapshot,
      profiles: snapshot.profiles.map((p) => (p.id === 'a' ? { ...p, keyPool: [{ id: 'main', label: 'key 1' }] } : p)),
    };
    const pools = new KeyPools();
    const poolKeys = [{ id: 'main', label: 'key 1', apiKey: keys.a! }];
    const resolver = createTargetResolver({ snapshot: () => pooled }, { ...keySource, poolKeysForRequest: () => poolKeys }, null, pools);
    const first = resolver.resolve({ tokenName: null, pinnedProfileId: null });
    (first as UpstreamTarget).keyLease!.record({ kind: 'rate_limited', cooldownMs: 60_000 }, Date.now());
    expect(resolver.resolve({ tokenName: null, pinnedProfileId: null })).toMatchObject({
      status: 429,
      errorClass: 'keys_cooling',
      held: { profile: { id: 'a' }, secrets: [keys.a] },
    });
  });

  it('a pooled profile none of whose keys the keychain holds names the fixes that work on a pool', () => {
    const snapshot = setActiveProfile(config(), 'nokey');
    const pooled = {
      ...snapshot,
      profiles: snapshot.profiles.map((p) => (p.id === 'nokey' ? { ...p, keyPool: [{ id: 'main', label: 'key 1' }] } : p)),
    };
    const resolver = createTargetResolver({ snapshot: () => pooled }, { ...keySource, poolKeysForRequest: () => [] }, null, new KeyPools());
    const refusal = resolver.resolve({ tokenName: null, pinnedProfileId: null });
    expect(refusal).toMatchObject({ status: 403, errorClass: 'no_key' });
    // `key set nokey` alone is refused on a pool: the message names the key to set.
    expect(refusal).toHaveProperty('message', expect.stringContaining('npx airlock key set nokey --key <id>'));
  });

  it('a key missing because the keychain could not be read says so, with the way to run without it', () => {
    const snapshot = setActiveProfile(config(), 'nokey');
    const unreadable = {
      ...keySource,
      unreadProblem: () => new KeychainUnavailableError('no D-Bus session'),
    };
    const refusal = createTargetResolver({ snapshot: () => snapshot }, unreadable).resolve({ tokenName: null, pinnedProfileId: null });
    expect(refusal).toMatchObject({ status: 403, errorClass: 'no_key' });
    expect(refusal).toHaveProperty('message', expect.stringContaining('no D-Bus session'));
  });
});
