import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { boundKeychainWaits } from '../../../../proxy/app/secrets/boundedSecretStore.ts';
import { KeychainNotAnsweringError, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';

/** A keychain whose calls answer only when the test says, as a hung Secret Service does. */
function heldKeychain() {
  const held: Array<{ call: string; answer: (value: string | null) => void }> = [];
  const sent: string[] = [];
  const hold = (call: string) =>
    new Promise<string | null>((resolve) => {
      sent.push(call);
      held.push({ call, answer: resolve });
    });
  const store: SecretStore = {
    get: (account) => hold(`get ${account}`),
    set: async (account) => void (await hold(`set ${account}`)),
    delete: async (account) => (await hold(`delete ${account}`)) !== null,
  };
  return { store, held, sent };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('boundKeychainWaits', () => {
  it('sends one call at a time and passes answers through', async () => {
    const keychain = heldKeychain();
    const secrets = boundKeychainWaits(keychain.store, 30_000);
    const first = secrets.get('a');
    const second = secrets.get('b');
    await vi.advanceTimersByTimeAsync(0);
    expect(keychain.sent).toEqual(['get a']);
    keychain.held[0]!.answer('key-a');
    expect(await first).toBe('key-a');
    await vi.advanceTimersByTimeAsync(0);
    expect(keychain.sent).toEqual(['get a', 'get b']);
    keychain.held[1]!.answer(null);
    expect(await second).toBeNull();
  });

  it('past the wait, fails that call and every call behind it at once, never sends those, and says when the keychain answers again', async () => {
    const keychain = heldKeychain();
    const secrets = boundKeychainWaits(keychain.store, 30_000);
    const answersAgain = vi.fn();
    secrets.onAnswersAgain?.(answersAgain);
    const stuck = secrets.get('a');
    const behind = secrets.set('b', 'secret-b');
    const stuckFailure = expect(stuck).rejects.toBeInstanceOf(KeychainNotAnsweringError);
    const behindFailure = expect(behind).rejects.toBeInstanceOf(KeychainNotAnsweringError);
    await vi.advanceTimersByTimeAsync(30_000);
    await stuckFailure;
    await behindFailure;
    // While the call is still out, another fails without being sent.
    await expect(secrets.delete('c')).rejects.toThrow(/did not answer within 30 s/);
    expect(keychain.sent).toEqual(['get a']);
    expect(answersAgain).not.toHaveBeenCalled();

    keychain.held[0]!.answer('key-a');
    await vi.advanceTimersByTimeAsync(0);
    expect(answersAgain).toHaveBeenCalledTimes(1);
    // The save the caller was told failed was never sent.
    expect(keychain.sent).toEqual(['get a']);
    const after = secrets.get('a');
    await vi.advanceTimersByTimeAsync(0);
    keychain.held[1]!.answer('key-a');
    expect(await after).toBe('key-a');
  });

  it('a slow answer inside the wait is no failure', async () => {
    const keychain = heldKeychain();
    const secrets = boundKeychainWaits(keychain.store, 30_000);
    const read = secrets.get('a');
    await vi.advanceTimersByTimeAsync(29_000);
    keychain.held[0]!.answer('key-a');
    expect(await read).toBe('key-a');
  });

  it('a listener that throws when the keychain answers again neither stops later calls nor the other listeners', async () => {
    const keychain = heldKeychain();
    const secrets = boundKeychainWaits(keychain.store, 30_000);
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    secrets.onAnswersAgain?.(() => {
      throw new Error('listener failed');
    });
    const other = vi.fn();
    secrets.onAnswersAgain?.(other);
    const stuck = expect(secrets.get('a')).rejects.toBeInstanceOf(KeychainNotAnsweringError);
    await vi.advanceTimersByTimeAsync(30_000);
    await stuck;
    keychain.held[0]!.answer('key-a');
    await vi.advanceTimersByTimeAsync(0);
    expect(other).toHaveBeenCalledTimes(1);
    expect(consoleError).toHaveBeenCalledWith(expect.stringContaining('listener failed'));
    const later = secrets.get('b');
    await vi.advanceTimersByTimeAsync(0);
    expect(keychain.sent).toEqual(['get a', 'get b']);
    keychain.held[1]!.answer('key-b');
    expect(await later).toBe('key-b');
    consoleError.mockRestore();
  });
});
