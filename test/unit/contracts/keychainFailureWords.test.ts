import { describe, expect, it } from 'vitest';
import { KeychainUnavailableError } from '../../../proxy/contracts/secretStore.ts';

describe('what a keychain failure tells the user to do', () => {
  it.each([
    ['the collection is locked', /keychain is locked .* Unlock it/],
    ['GDBus.Error: The name :1.42 was not provided by any .service files', /Secret Service Airlock was using is gone/],
    ['Cannot autolaunch D-Bus without X11 $DISPLAY', /no OS keychain .* Start a keyring/],
  ])('%s', (detail, advice) => {
    expect(new KeychainUnavailableError(detail).message).toMatch(advice);
  });

  it.each([
    'the keychain helper process failed (spawn EMFILE)',
    'the keychain helper process failed (spawn EAGAIN)',
    'the keychain helper process failed (spawn ENOMEM)',
    'the keychain helper process failed (ENFILE: file table overflow)',
  ])('a helper the system could not start (%s) is not called a missing keychain', (detail) => {
    const message = new KeychainUnavailableError(detail).message;
    expect(message).not.toMatch(/no OS keychain|Start a keyring/);
    expect(message).toMatch(/out of open files, processes or memory/);
    expect(message).toContain(detail);
    expect(message).toMatch(/AIRLOCK_API_KEY/);
  });
});
