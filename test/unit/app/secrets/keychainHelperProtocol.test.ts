import { describe, expect, it } from 'vitest';
import {
  answerHelperCall,
  type HelperCall,
  type KeychainHelper,
  type KeychainHelperEvents,
  keychainInHelper,
} from '../../../../proxy/app/secrets/keychainHelperProtocol.ts';
import { KeychainUnavailableError } from '../../../../proxy/contracts/secretStore.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

/** A helper process in memory: the calls sent to it, answered (or not) when the test says. */
interface FakeHelper {
  service: string;
  calls: HelperCall[];
  events: KeychainHelperEvents;
  killed: boolean;
}

function fakeHelpers() {
  const started: FakeHelper[] = [];
  const start = (service: string, events: KeychainHelperEvents): KeychainHelper => {
    const helper: FakeHelper = { service, calls: [], events, killed: false };
    started.push(helper);
    return {
      send: (call) => void helper.calls.push(call),
      kill: () => {
        helper.killed = true;
      },
    };
  };
  return { started, start };
}

/** Lets the store's turn after an answer pass (it ends an idle helper then). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('keychain calls in a helper process', () => {
  it('starts a helper for the service at the first call and settles each call by its id, out of order too', async () => {
    const helpers = fakeHelpers();
    const store = keychainInHelper(helpers.start, 'Airlock');
    const read = store.get('key-work');
    const removed = store.delete('key-home');
    expect(helpers.started).toHaveLength(1);
    const [helper] = helpers.started;
    expect(helper?.service).toBe('Airlock');
    const [readCall, deleteCall] = helper?.calls ?? [];
    expect(readCall).toMatchObject({ kind: 'read', account: 'key-work' });
    expect(deleteCall).toMatchObject({ kind: 'delete', account: 'key-home' });
    helper?.events.answered({ id: deleteCall?.id ?? 0, value: true });
    helper?.events.answered({ id: readCall?.id ?? 0, value: SENTINEL_KEY });
    await expect(read).resolves.toBe(SENTINEL_KEY);
    await expect(removed).resolves.toBe(true);
  });

  it("fails a call with the keychain's own reason when the helper reports one", async () => {
    const helpers = fakeHelpers();
    const save = keychainInHelper(helpers.start, 'Airlock').set('key-work', SENTINEL_KEY);
    const [helper] = helpers.started;
    expect(helper?.calls[0]).toMatchObject({ kind: 'save', account: 'key-work', secret: SENTINEL_KEY });
    helper?.events.answered({ id: helper.calls[0]?.id ?? 0, failure: 'Cannot autolaunch D-Bus without X11 $DISPLAY' });
    const failure = await save.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeychainUnavailableError);
    expect((failure as KeychainUnavailableError).detail).toBe('Cannot autolaunch D-Bus without X11 $DISPLAY');
  });

  it('ends the helper once idle, and the next call starts another', async () => {
    const helpers = fakeHelpers();
    const store = keychainInHelper(helpers.start, 'Airlock');
    const read = store.get('key-work');
    const [first] = helpers.started;
    first?.events.answered({ id: first.calls[0]?.id ?? 0, value: null });
    await read;
    expect(first?.killed).toBe(false);
    await nextTurn();
    expect(first?.killed).toBe(true);

    void store.get('key-work');
    expect(helpers.started).toHaveLength(2);
    expect(helpers.started[1]?.calls).toHaveLength(1);
  });

  it('keeps the helper while a call sent in the turn of an answer waits for its own', async () => {
    const helpers = fakeHelpers();
    const store = keychainInHelper(helpers.start, 'Airlock');
    const first = store.get('key-work');
    const [helper] = helpers.started;
    helper?.events.answered({ id: helper.calls[0]?.id ?? 0, value: null });
    await first;
    void store.get('key-home');
    await nextTurn();
    expect(helper?.killed).toBe(false);
    expect(helpers.started).toHaveLength(1);
  });

  it('fails the calls a helper held when it ends, and not those sent to the one after it', async () => {
    const helpers = fakeHelpers();
    const store = keychainInHelper(helpers.start, 'Airlock');
    const held = store.get('key-work');
    const [stuck] = helpers.started;
    stuck?.events.ended();
    await expect(held).rejects.toThrow(new KeychainUnavailableError('the keychain helper process ended'));

    const next = store.get('key-work');
    const [, successor] = helpers.started;
    expect(successor).toBeDefined();
    // A late word from the helper that ended settles nothing of its successor's.
    stuck?.events.ended();
    stuck?.events.answered({ id: successor?.calls[0]?.id ?? 0, value: 'not this one' });
    successor?.events.answered({ id: successor.calls[0]?.id ?? 0, value: SENTINEL_KEY });
    await expect(next).resolves.toBe(SENTINEL_KEY);
  });
});

describe("the helper's side", () => {
  it('answers each kind of call on the keychain by its id', async () => {
    const keychain = memorySecretStore({ 'key-work': SENTINEL_KEY });
    expect(await answerHelperCall(keychain, { id: 1, kind: 'read', account: 'key-work' })).toEqual({ id: 1, value: SENTINEL_KEY });
    expect(await answerHelperCall(keychain, { id: 2, kind: 'save', account: 'key-home', secret: 'sk-home' })).toEqual({
      id: 2,
      value: null,
    });
    expect(keychain.entries.get('key-home')).toBe('sk-home');
    expect(await answerHelperCall(keychain, { id: 3, kind: 'delete', account: 'key-home' })).toEqual({ id: 3, value: true });
  });

  it("says a keychain failure's reason, and any other failure without its message (which could hold the secret)", async () => {
    const failing = (error: Error) => ({ ...memorySecretStore(), set: async () => Promise.reject(error) });
    const call: HelperCall = { id: 4, kind: 'save', account: 'key-work', secret: SENTINEL_KEY };
    expect(await answerHelperCall(failing(new KeychainUnavailableError('the keychain is locked')), call)).toEqual({
      id: 4,
      failure: 'the keychain is locked',
    });
    expect(await answerHelperCall(failing(new Error(`bad secret ${SENTINEL_KEY}`)), call)).toEqual({
      id: 4,
      failure: 'the keychain call failed',
    });
  });
});
