import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const fixture = path.join(import.meta.dirname, 'fixtures', 'keychainWithoutFileDescriptors.ts');
/** Low, so the fixture runs out of descriptors in a few opens rather than the system's thousands. */
const OPEN_FILES_LIMIT = 128;

/**
 * `airlock serve` and the CLI read the keychain through a helper process (keychainHelperStore.ts).
 * A helper that cannot be started (out of file descriptors or processes: Node's fork reports
 * EMFILE or EAGAIN as an 'error' event, not a throw) must fail that keychain call, not Airlock:
 * an 'error' event no one listens to ends the process.
 */
describe('a keychain helper that cannot be started', () => {
  it('fails the keychain call as the keychain unavailable, and the process goes on', async () => {
    const { stdout } = await run('bash', ['-c', `ulimit -n ${OPEN_FILES_LIMIT} && exec "$0" "$1"`, process.execPath, fixture]);
    const [answer, after] = stdout.trim().split('\n');
    expect(answer).toMatch(/^KeychainUnavailableError: .*EMFILE/);
    expect(after).toBe('still running');
  });
});
