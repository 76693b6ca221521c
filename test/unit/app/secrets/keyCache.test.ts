import { describe, expect, it } from 'vitest';
import { emptyConfig, type ConfigFile } from '../../../../proxy/contracts/config.ts';
import { addProfile, bumpKeysRevision } from '../../../../proxy/app/profiles/configMutations.ts';
import { API_KEY_ENV_VAR, EnvKeySource } from '../../../../proxy/app/secrets/envKeySource.ts';
import { poolKeyAccount } from '../../../../proxy/contracts/keyPool.ts';
import { describeKeyStatus, KeyCache } from '../../../../proxy/app/secrets/keyCache.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';
import { KeychainNotAnsweringError, KeychainUnavailableError, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';

/** A config source whose changes the test pushes by hand. */
function configSource(initial: ConfigFile) {
  let current = initial;
  const listeners = new Set<(config: ConfigFile) => void>();
  return {
    snapshot: () => current,
    onChange(listener: (config: ConfigFile) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    push(next: ConfigFile) {
      current = next;
      for (const listener of listeners) listener(next);
    },
  };
}

const oneProfile = addProfile(emptyConfig(), { id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1' });

describe('KeyCache', () => {
  it('loads keys at start and shows only whether a key is set and its last four', async () => {
    const cache = new KeyCache(memorySecretStore({ work: SENTINEL_KEY }));
    await cache.loadAll(['work', 'home']);
    expect(cache.keyStatus('work')).toEqual({ set: true, lastFour: SENTINEL_KEY.slice(-4) });
    expect(cache.keyStatus('home')).toEqual({ set: false, lastFour: null });
    expect(JSON.stringify(cache)).not.toContain(SENTINEL_KEY);
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
  });

  it("says a key from AIRLOCK_API_KEY is the environment's, for its profile only, over the keychain's", async () => {
    const cache = new KeyCache(memorySecretStore({ work: 'sk-keychain-key-0000' }));
    await cache.loadAll(['work', 'home']);
    cache.setEnvironmentKey(EnvKeySource.fromEnvironment({ [API_KEY_ENV_VAR]: SENTINEL_KEY }, 'home'));
    expect(cache.keyStatus('home')).toEqual({ set: true, lastFour: SENTINEL_KEY.slice(-4), fromEnvironment: true });
    expect(cache.keyStatus('work')).toEqual({ set: true, lastFour: '0000' });
    expect(describeKeyStatus(cache.keyStatus('home'))).toBe(`from AIRLOCK_API_KEY for this run, ends in ${SENTINEL_KEY.slice(-4)}`);
  });

  it('hides the tail of a key too short to show any of it', async () => {
    const cache = new KeyCache(memorySecretStore({ work: 'short-key' }));
    await cache.loadAll(['work']);
    expect(cache.keyStatus('work')).toEqual({ set: true, lastFour: null });
  });

  it('set and delete go to the keychain and the cache', async () => {
    const secrets = memorySecretStore();
    const cache = new KeyCache(secrets);
    await cache.setKey('work', SENTINEL_KEY);
    expect(secrets.entries.get('work')).toBe(SENTINEL_KEY);
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
    expect(await cache.deleteKey('work')).toBe(true);
    expect(secrets.entries.has('work')).toBe(false);
    expect(cache.keyStatus('work').set).toBe(false);
  });

  it('follows the config: reloads when another process bumps the keys revision', async () => {
    const secrets = memorySecretStore();
    const source = configSource(oneProfile);
    const cache = new KeyCache(secrets);
    const following = cache.follow(source);
    await following.ready;
    expect(cache.keyStatus('work').set).toBe(false);

    secrets.entries.set('work', SENTINEL_KEY);
    source.push(bumpKeysRevision(source.snapshot()));
    // Loads are queued in order: a refresh queued after the reload resolves once the reload is done.
    await cache.refresh('other');
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
    following.stop();
  });

  describe('a key replaced or removed', () => {
    // Shaped like no key (not sk-, too short to look random), so only knowing it masks it.
    const OLD = 'gwk-old-4f9a2c7e1b8d3a6f';
    const NEW = 'gwk-new-0e5c9b2a7d4f1c8e';

    it('is no longer sent, but stays masked: a gateway may echo it after the change', async () => {
      const secrets = memorySecretStore();
      const cache = new KeyCache(secrets);
      await cache.setKey('work', OLD);
      await cache.setKey('work', NEW);
      expect(cache.getKeyForRequest('work')).toBe(NEW);
      expect(cache.secretsForMasking()).toEqual(expect.arrayContaining([OLD, NEW]));
      expect(cache.retiredKeysOf('work')).toEqual([OLD]);
      expect(await cache.deleteKey('work')).toBe(true);
      expect(cache.getKeyForRequest('work')).toBeNull();
      expect(cache.secretsForMasking()).toEqual(expect.arrayContaining([OLD, NEW]));
    });

    it('also when another process changed it (a reload finds another value)', async () => {
      const secrets = memorySecretStore({ work: OLD });
      const cache = new KeyCache(secrets);
      await cache.loadAll(['work']);
      secrets.entries.set('work', NEW);
      await cache.loadAll(['work']);
      expect(cache.getKeyForRequest('work')).toBe(NEW);
      expect(cache.retiredKeysOf('work')).toEqual([OLD]);
    });

    it('is kept for masking only so long: the newest few, for a day', async () => {
      let nowMs = 0;
      const cache = new KeyCache(memorySecretStore(), () => nowMs);
      for (let rotation = 0; rotation < 40; rotation += 1) await cache.setKey('work', `${OLD}-${rotation}`);
      expect(cache.secretsForMasking().length).toBeLessThanOrEqual(17);
      expect(cache.secretsForMasking()).toContain(`${OLD}-38`);
      nowMs += 25 * 60 * 60 * 1000;
      expect(cache.secretsForMasking()).toEqual([`${OLD}-39`]);
    });
  });

  it('a keychain that fails on a reload (a profile added meanwhile) keeps the keys it gave, and says so until it answers again', async () => {
    const secrets = memorySecretStore({ work: SENTINEL_KEY });
    let keychainUp = true;
    const flaky = {
      get: (account: string) => (keychainUp ? secrets.get(account) : unavailableSecretStore().get(account)),
      set: secrets.set,
      delete: secrets.delete,
    };
    const cache = new KeyCache(flaky);
    await cache.loadAll(['work']);
    keychainUp = false;
    await cache.loadAll(['work', 'home']);
    // Requests on "work" still go out with its key, instead of a "no gateway key" refusal the user did nothing for.
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
    expect(cache.keychainProblem()).toContain('no D-Bus session');
    keychainUp = true;
    secrets.entries.set('home', 'sk-home-key-000000000000');
    await cache.loadAll(['work', 'home']);
    expect(cache.keychainProblem()).toBeNull();
    expect(cache.getKeyForRequest('home')).toBe('sk-home-key-000000000000');
  });

  it('a keychain that refuses one account still gives the others, and names the one it could not read', async () => {
    const secrets = memorySecretStore({ work: SENTINEL_KEY, home: 'sk-home-key-000000000000' });
    // macOS refuses one item whose access list leaves Airlock out; libsecret one in a locked collection of its own.
    const refusesWork: SecretStore = {
      ...secrets,
      get: (account) => (account === 'work' ? Promise.reject(new KeychainUnavailableError('item access denied')) : secrets.get(account)),
    };
    const cache = new KeyCache(refusesWork);
    await cache.loadAll(['work', 'home']);
    expect(cache.getKeyForRequest('home')).toBe('sk-home-key-000000000000');
    expect(cache.getKeyForRequest('work')).toBeNull();
    expect(cache.unreadProblem(['work'])?.message).toContain('item access denied');
    expect(cache.unreadProblem(['home'])).toBeNull();
    expect(cache.keychainProblem()).toContain('"work"');
    // Whether "work" has a key is not known: the window must not say it has none.
    expect(cache.keyStatus('work')).toEqual({ set: false, lastFour: null, unread: true });
    expect(cache.keyStatus('home')).toEqual({ set: true, lastFour: '0000' });
  });

  it("says a pool's key the keychain refused is unread, not missing", async () => {
    const secrets = memorySecretStore({ 'work#k2': SENTINEL_KEY });
    const refusesK1: SecretStore = {
      ...secrets,
      get: (account) =>
        account === poolKeyAccount('work', 'k1')
          ? Promise.reject(new KeychainUnavailableError('item access denied'))
          : secrets.get(account),
    };
    const cache = new KeyCache(refusesK1);
    await cache.loadAll([poolKeyAccount('work', 'k1'), poolKeyAccount('work', 'k3')]);
    expect(cache.poolKeyStatus('work', 'k1')).toEqual({ set: false, lastFour: null, unread: true });
    expect(cache.poolKeyStatus('work', 'k3')).toEqual({ set: false, lastFour: null });
  });

  it('reads the keys it could not read as soon as the keychain answers again', async () => {
    const secrets = memorySecretStore({ work: SENTINEL_KEY });
    const answersAgain = new Set<() => void>();
    let answering = false;
    const stuckThenBack: SecretStore = {
      ...secrets,
      get: (account) => (answering ? secrets.get(account) : Promise.reject(new KeychainNotAnsweringError(30_000))),
      onAnswersAgain: (listener) => {
        answersAgain.add(listener);
        return () => answersAgain.delete(listener);
      },
    };
    const cache = new KeyCache(stuckThenBack);
    const following = cache.follow(configSource(oneProfile));
    await following.ready;
    expect(cache.unreadProblem(['work'])).toBeInstanceOf(KeychainNotAnsweringError);
    const changed = new Promise<void>((resolve) => cache.onChange(resolve));
    answering = true;
    for (const listener of answersAgain) listener();
    await changed;
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
    expect(cache.keychainProblem()).toBeNull();
    following.stop();
    expect(answersAgain.size).toBe(0);
  });

  it('a request that finds a key unread asks for one more reading, not one per request', async () => {
    const secrets = memorySecretStore({ work: SENTINEL_KEY });
    let unlocked = false;
    let reads = 0;
    const lockedThenUnlocked: SecretStore = {
      ...secrets,
      get: (account) => {
        reads += 1;
        return unlocked ? secrets.get(account) : Promise.reject(new KeychainUnavailableError('the collection is locked'));
      },
    };
    const cache = new KeyCache(lockedThenUnlocked);
    await cache.follow(configSource(oneProfile)).ready;
    expect(reads).toBe(1);
    unlocked = true;
    const changed = new Promise<void>((resolve) => cache.onChange(resolve));
    cache.readUnreadAgain();
    cache.readUnreadAgain();
    await changed;
    expect(reads).toBe(2);
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
    cache.readUnreadAgain();
    expect(reads).toBe(2);
  });

  it('a save the keychain did not answer in time is read again when it answers, so the cache holds what the keychain holds', async () => {
    const secrets = memorySecretStore({ work: 'sk-old-key-00000000000000' });
    const answersAgain = new Set<() => void>();
    const slowSave: SecretStore = {
      ...secrets,
      // The save reaches the keychain (the prompt was answered late), but after the caller stopped waiting.
      set: async (account, secret) => {
        await secrets.set(account, secret);
        throw new KeychainNotAnsweringError(30_000, 'save');
      },
      onAnswersAgain: (listener) => {
        answersAgain.add(listener);
        return () => answersAgain.delete(listener);
      },
    };
    const cache = new KeyCache(slowSave);
    await cache.follow(configSource(oneProfile)).ready;
    await expect(cache.setKey('work', SENTINEL_KEY)).rejects.toThrow(/may not have been saved/);
    const changed = new Promise<void>((resolve) => cache.onChange(resolve));
    for (const listener of answersAgain) listener();
    await changed;
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
  });

  it('a held key read as empty keeps being sent unless the keys revision says keys changed (a locked keyring reads as empty)', async () => {
    const secrets = memorySecretStore({ work: SENTINEL_KEY });
    const config = configSource(oneProfile);
    const cache = new KeyCache(secrets);
    await cache.follow(config).ready;
    secrets.entries.delete('work');
    const reloaded = () => new Promise<void>((resolve) => cache.onChange(resolve));
    let changed = reloaded();
    config.push(addProfile(config.snapshot(), { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));
    await changed;
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
    expect(cache.keychainProblem()).toContain('probably locked');
    changed = reloaded();
    config.push(bumpKeysRevision(config.snapshot()));
    await changed;
    expect(cache.getKeyForRequest('work')).toBeNull();
    expect(cache.keychainProblem()).toBeNull();
  });

  it('reading again for an unread profile keeps another held key a locked keyring reads as empty', async () => {
    // The reviewer's case: 'work' held, the keyring locks, 'home' was never readable, a request for 'home' reads again.
    const secrets = memorySecretStore({ work: SENTINEL_KEY });
    const config = configSource(oneProfile);
    const cache = new KeyCache({
      ...secrets,
      get: (account) => (account === 'home' ? Promise.reject(new KeychainUnavailableError('refused')) : secrets.get(account)),
    });
    await cache.follow(config).ready;
    secrets.entries.delete('work');
    let changed = new Promise<void>((resolve) => cache.onChange(resolve));
    config.push(addProfile(config.snapshot(), { id: 'home', name: 'Home', baseUrl: 'https://home.example/v1' }));
    await changed;
    changed = new Promise<void>((resolve) => cache.onChange(resolve));
    cache.readUnreadAgain();
    await changed;
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
  });

  it('a delete the keychain did not answer is taken at its word on the reading again: the deleted key is not sent', async () => {
    const secrets = memorySecretStore({ work: SENTINEL_KEY });
    const cache = new KeyCache({
      ...secrets,
      delete: async (account) => {
        await secrets.delete(account);
        throw new KeychainNotAnsweringError(30_000, 'delete');
      },
    });
    await cache.follow(configSource(oneProfile)).ready;
    await expect(cache.deleteKey('work')).rejects.toThrow(KeychainNotAnsweringError);
    await cache.readUnreadAgain();
    expect(cache.getKeyForRequest('work')).toBeNull();
  });

  it('names the accounts it could not read unless it could read none of those loaded', async () => {
    const secrets = memorySecretStore({ work: SENTINEL_KEY });
    const cache = new KeyCache({
      ...secrets,
      // A save for a new account that timed out marks it unread; the loaded 'work' was read.
      set: () => Promise.reject(new KeychainNotAnsweringError(30_000, 'save')),
    });
    await cache.follow(configSource(oneProfile)).ready;
    await expect(cache.setKey('other', 'sk-other-key-000000000000')).rejects.toThrow(KeychainNotAnsweringError);
    expect(cache.keychainProblem()).toMatch(/^the keychain could not read the key under "other"/);
  });

  it('requests that keep finding a key unread ask the keychain again at most every few seconds, not once per request', async () => {
    let nowMs = 1_000_000;
    let reads = 0;
    const noService: SecretStore = {
      ...memorySecretStore(),
      get: () => {
        reads += 1;
        return Promise.reject(new KeychainUnavailableError('no Secret Service'));
      },
    };
    const cache = new KeyCache(noService, () => nowMs);
    await cache.follow(configSource(oneProfile)).ready;
    await cache.readUnreadAgain();
    expect(reads).toBe(2);
    // A burst of requests right after: each reading would start a keychain helper process in `airlock serve`.
    expect(cache.readUnreadAgain()).toBeNull();
    expect(reads).toBe(2);
    nowMs += 5_000;
    await cache.readUnreadAgain();
    expect(reads).toBe(3);
  });

  it('a clock set back after a reading does not stop the next ones until it catches up', async () => {
    let nowMs = 1_000_000;
    let locked = true;
    const lockedOnResume: SecretStore = {
      ...memorySecretStore({ work: SENTINEL_KEY }),
      get: () => (locked ? Promise.reject(new KeychainUnavailableError('the keychain is locked')) : Promise.resolve(SENTINEL_KEY)),
    };
    const cache = new KeyCache(lockedOnResume, () => nowMs);
    await cache.follow(configSource(oneProfile)).ready;
    await cache.readUnreadAgain();
    // After a resume the clock is set right (NTP, or the user) an hour back, and the user unlocks the keychain.
    nowMs -= 60 * 60 * 1000;
    locked = false;
    nowMs += 5_000;
    await cache.readUnreadAgain();
    expect(cache.getKeyForRequest('work')).toBe(SENTINEL_KEY);
  });

  it('reports an unavailable keychain instead of failing', async () => {
    const cache = new KeyCache(unavailableSecretStore());
    await cache.loadAll(['work']);
    expect(cache.keychainProblem()).toContain('AIRLOCK_API_KEY');
    expect(cache.keyStatus('work').set).toBe(false);
  });

  it('with a key from AIRLOCK_API_KEY, the keychain problem no longer asks the user to set it', async () => {
    const cache = new KeyCache(unavailableSecretStore());
    await cache.loadAll(['work']);
    cache.setEnvironmentKey(EnvKeySource.fromEnvironment({ [API_KEY_ENV_VAR]: SENTINEL_KEY }, 'work'));
    expect(cache.keychainProblem()).toContain('no D-Bus session');
    expect(cache.keychainProblem()).not.toContain('set AIRLOCK_API_KEY');
    expect(cache.keychainProblem()).toContain('this run takes the gateway key from AIRLOCK_API_KEY');
  });
});
