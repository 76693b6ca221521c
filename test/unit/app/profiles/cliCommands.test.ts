import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import packageJson from '../../../../package.json' with { type: 'json' };
import { sha256Hex } from '../../../../proxy/http/clientTokens.ts';
import { findSentinel, SENTINEL_KEY } from '../../../support/sentinel.ts';
import { memorySecretStore, unavailableSecretStore } from '../../../support/memorySecretStore.ts';
import { runAirlock, type CliRun } from '../../../support/cliHarness.ts';

let dataDir: string;
let secrets: ReturnType<typeof memorySecretStore>;

function airlock(args: string[], input = ''): Promise<CliRun> {
  return runAirlock(dataDir, secrets, args, input);
}

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'airlock-cli-'));
  secrets = memorySecretStore();
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('airlock profile', () => {
  it('add, list with active marker and key status, use, remove', async () => {
    expect(
      (await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1/chat/completions'])).exitCode,
    ).toBe(0);
    await airlock(['profile', 'add', 'home', '--name', 'Home', '--base-url', 'https://home.example']);
    secrets.entries.set('work', SENTINEL_KEY);

    const listed = await airlock(['profile', 'list']);
    expect(listed.stdout).toContain(`* work  Work  https://gw.example/v1  key: set, ends in ${SENTINEL_KEY.slice(-4)}`);
    expect(listed.stdout).toContain('  home  Home  https://home.example/v1  key: not set');
    expect(listed.stdout + listed.stderr).not.toContain(SENTINEL_KEY);

    await airlock(['profile', 'use', 'home']);
    expect((await airlock(['profile', 'list'])).stdout).toContain('* home');

    const removed = await airlock(['profile', 'remove', 'work']);
    expect(removed.exitCode).toBe(0);
    expect(secrets.entries.has('work')).toBe(false);
  });

  it('names a profile added without --name by its id', async () => {
    expect((await airlock(['profile', 'add', 'work', '--base-url', 'https://gw.example/v1'])).exitCode).toBe(0);
    expect((await airlock(['profile', 'list'])).stdout).toContain('* work  work  https://gw.example/v1');
  });

  it('sets the request body limit at add or later, shows it, and keeps it in the config file', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1', '--max-body-mib', '16']);
    expect((await airlock(['profile', 'list'])).stdout).toContain('body limit: 16 MiB');
    const set = await airlock(['profile', 'set', 'work', '--max-body-mib', '128']);
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toContain('Profile work accepts request bodies up to 128 MiB.');
    const file = JSON.parse(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8'));
    expect(file.profiles[0].maxRequestBodyMiB).toBe(128);
    await airlock(['profile', 'add', 'home', '--name', 'Home', '--base-url', 'https://home.example']);
    expect((await airlock(['profile', 'list'])).stdout).toMatch(/home .* body limit: 64 MiB/);
  });

  it('warns when the keychain already holds a key for the new id, which this profile would send to its gateway', async () => {
    // Left by a profile "work" removed while the keychain was locked, or the profile "work" of another data directory.
    secrets.entries.set('work', SENTINEL_KEY);
    const added = await airlock(['profile', 'add', 'work', '--name', 'Personal', '--base-url', 'https://personal.example/v1']);
    expect(added.exitCode).toBe(0);
    expect(added.stderr).toContain(
      `warning: the OS keychain already holds a gateway key for a profile "work" (ends in ${SENTINEL_KEY.slice(-4)}): one removed earlier, or the profile "work" of another data directory. This profile sends it to https://personal.example/v1. If it is not this gateway's key, replace it: \`npx airlock key set work --data-dir ${dataDir}\`.`,
    );
    expect(added.stderr).not.toContain('Next: store its gateway key');
    expect(findSentinel(added.stdout + added.stderr)).toBeNull();
  });

  it('removed without a keychain, says its key stays there and what that means, without the AIRLOCK_API_KEY advice', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const removed = await runAirlock(dataDir, unavailableSecretStore(), ['profile', 'remove', 'work']);
    expect(removed.exitCode).toBe(0);
    expect(removed.stderr).toContain(
      'warning: no OS keychain (Secret Service) is available (no D-Bus session), so its key, if it has one, stays there: a profile added later as "work" would use it.',
    );
    expect(removed.stderr).not.toContain('AIRLOCK_API_KEY');
  });

  it('renames a profile and moves it to a corrected base URL, keeping its key and the rest', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.exmaple/v1', '--max-body-mib', '16']);
    await airlock(['key', 'set', 'work'], SENTINEL_KEY);
    const set = await airlock(['profile', 'set', 'work', '--name', 'Work gateway', '--base-url', 'https://gw.example/v1/chat/completions']);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toBe('Profile work: name "Work gateway", base URL https://gw.example/v1.\n');
    expect((await airlock(['profile', 'list'])).stdout).toContain('work  Work gateway  https://gw.example/v1  key: set');
    expect((await airlock(['profile', 'list'])).stdout).toContain('body limit: 16 MiB');
    expect(secrets.entries.get('work')).toBe(SENTINEL_KEY);
  });

  it('refuses a key given as the base URL, keeping the profile and writing the key nowhere', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    for (const args of [
      ['profile', 'set', 'work', '--base-url', SENTINEL_KEY],
      ['profile', 'add', 'home', '--base-url', `https://${SENTINEL_KEY}`],
    ]) {
      const run = await airlock(args);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toContain('--base-url: The base URL looks like a gateway key');
      expect(findSentinel(run.stdout + run.stderr)).toBeNull();
    }
    const file = readFileSync(path.join(dataDir, 'airlock.json'), 'utf8');
    expect(findSentinel(file.toUpperCase(), SENTINEL_KEY.toUpperCase())).toBeNull();
    expect((await airlock(['profile', 'list'])).stdout).toContain('* work  Work  https://gw.example/v1');
  });

  it('`profile set` without a setting to change says which it takes (exit 2)', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const run = await airlock(['profile', 'set', 'work']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('give --name, --base-url or --max-body-mib');
  });

  it.each([
    // A value that is no limit is a mistake in the command line (2); a profile that does not exist, a failure (1).
    [['profile', 'set', 'work', '--max-body-mib', '0'], 'airlock: --max-body-mib: must be at least 1 MiB', 2],
    [['profile', 'set', 'work', '--max-body-mib', '1.5'], 'airlock: --max-body-mib: must be a whole number of MiB', 2],
    [['profile', 'set', 'work', '--max-body-mib', 'lots'], 'airlock: --max-body-mib: must be a number', 2],
    [['profile', 'set', 'work', '--max-body-mib', '4096'], 'airlock: --max-body-mib: must be at most 1024 MiB', 2],
    [['profile', 'set', 'nope', '--max-body-mib', '8'], 'airlock: no profile with id "nope"', 1],
  ])('refuses %j and keeps the limit', async (args, message, exitCode) => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const refused = await airlock(args);
    expect(refused.exitCode).toBe(exitCode);
    expect(refused.stderr.startsWith(message)).toBe(true);
    expect((await airlock(['profile', 'list'])).stdout).toContain('body limit: 64 MiB');
  });

  it.each([
    [['profile', 'use', 'nope'], 'airlock: no profile with id "nope"'],
    [['key', 'set', 'nope'], 'airlock: no profile with id "nope"'],
    [['token', 'revoke', 'nope'], 'airlock: no client token named "nope"'],
  ])('%j fails with one line on stderr and exit code 1', async (args, message) => {
    const run = await airlock(args);
    expect(run.exitCode).toBe(1);
    expect(run.stderr.startsWith(message)).toBe(true);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('airlock key', () => {
  it('takes a piped key ending in the line break echo, printf and files end with, without a note about cleaning it', async () => {
    await airlock(['profile', 'add', 'piped', '--name', 'Piped', '--base-url', 'https://gw.example/v1']);
    const run = await airlock(['key', 'set', 'piped'], `${SENTINEL_KEY}\n`);
    expect(run.exitCode).toBe(0);
    expect(secrets.entries.get('piped')).toBe(SENTINEL_KEY);
    expect(run.stderr).not.toContain('note:');
    // Whitespace beyond that one line break is still worth a word: it came from the paste.
    const padded = await airlock(['key', 'set', 'piped'], `  ${SENTINEL_KEY}\r\n`);
    expect(secrets.entries.get('piped')).toBe(SENTINEL_KEY);
    expect(padded.stderr).toContain('note: removed surrounding whitespace or line breaks');
  });

  it.each([
    ['key set', ['key', 'set', 'work']],
    ['key add', ['key', 'add', 'work']],
  ])('%s without a keychain says so before it asks for the key it could not keep', async (_name, args) => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    let keyAskedFor = false;
    const pasted = Readable.from(
      (function* () {
        keyAskedFor = true;
        yield `${SENTINEL_KEY}\n`;
      })(),
    );
    const run = await runAirlock(dataDir, unavailableSecretStore(), args, pasted);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('no D-Bus session');
    expect(keyAskedFor).toBe(false);
  });

  it('reads the key from stdin, cleans it, stores it in the keychain and never prints it', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const run = await airlock(['key', 'set', 'work'], `Bearer ${SENTINEL_KEY}\n`);
    expect(run.exitCode).toBe(0);
    expect(secrets.entries.get('work')).toBe(SENTINEL_KEY);
    expect(run.stderr).toContain("note: removed a leading 'Bearer '");
    expect(run.stdout).toContain(`ends in ${SENTINEL_KEY.slice(-4)}`);
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
    expect(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')).not.toContain(SENTINEL_KEY);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8')).keysRevision).toBe(1);

    expect((await airlock(['key', 'delete', 'work'])).stdout).toContain('Deleted');
    expect(secrets.entries.has('work')).toBe(false);
  });

  // Windows PowerShell 5.1's `>` writes UTF-16LE with a byte order mark; cmd.exe's `< key.txt` passes the bytes on.
  it.each([
    ['UTF-16LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${SENTINEL_KEY}\r\n`, 'utf16le')])],
    ['UTF-16BE', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(`${SENTINEL_KEY}\r\n`, 'utf16le').swap16()])],
    ['UTF-8 with a byte order mark', Buffer.from(`\uFEFF${SENTINEL_KEY}\n`)],
  ])('reads a key file written as %s', async (_encoding, bytes) => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const run = await runAirlock(dataDir, secrets, ['key', 'set', 'work'], Readable.from([bytes]));
    expect(run.exitCode, run.stderr).toBe(0);
    expect(secrets.entries.get('work')).toBe(SENTINEL_KEY);
  });

  it('refuses a key that cannot be cleaned, without echoing it', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const run = await airlock(['key', 'set', 'work'], 'sk-abc def-ghi');
    expect(run.exitCode).toBe(1);
    expect(run.stderr).not.toContain('sk-abc');
    expect(secrets.entries.size).toBe(0);
  });

  it('set --key with an id the profile does not have says so before asking for the secret', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    // No input: a prompt for the secret would come first and fail as an empty key.
    const run = await airlock(['key', 'set', 'work', '--key', 'k9']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(`airlock: profile "work" has no key pool: add keys with \`npx airlock key add work --data-dir ${dataDir}\`\n`);
  });

  // Typed where the id or the command goes (`key set sk-…`, thinking the key goes there): the refusal repeated it.
  it.each([
    [['key', 'set', SENTINEL_KEY], 1, /^airlock: no profile with the id given \(profiles: work\): it looks like a gateway key/],
    [['key', 'delete', SENTINEL_KEY], 1, /^airlock: no profile with the id given/],
    [['profile', 'use', SENTINEL_KEY], 1, /^airlock: no profile with the id given/],
    [
      ['profile', 'add', SENTINEL_KEY, '--base-url', 'https://gw.example/v1'],
      2,
      /^airlock: the id given is no profile id: it looks like a gateway key/,
    ],
    // Lowercase, as DeepSeek's sk- and 32 hex digits are, a key is a valid id: it was added as the profile's id.
    [
      ['profile', 'add', SENTINEL_KEY.toLowerCase(), '--name', 'Work 2', '--base-url', 'https://gw.example/v1'],
      2,
      /^airlock: the id given is no profile id: it looks like a gateway key/,
    ],
    [[SENTINEL_KEY], 2, /^airlock: unknown command '\[redacted\]'/],
    [['connect', SENTINEL_KEY], 2, /^airlock: command-argument value '\[redacted\]' is invalid for argument 'tool'/],
  ])('%j refuses a key typed as an argument without repeating it', async (args, exitCode, message) => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const run = await airlock(args as string[], SENTINEL_KEY);
    expect(run.exitCode).toBe(exitCode);
    expect(run.stderr).toMatch(message);
    expect(findSentinel((run.stdout + run.stderr).toLowerCase(), SENTINEL_KEY.toLowerCase())).toBeNull();
    expect(findSentinel(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8').toLowerCase(), SENTINEL_KEY.toLowerCase())).toBeNull();
    expect(secrets.entries.size).toBe(0);
  });

  it('takes no key on the command line', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const run = await airlock(['key', 'set', 'work', SENTINEL_KEY]);
    expect(run.exitCode).not.toBe(0);
    expect(secrets.entries.size).toBe(0);
    expect(run.stderr).not.toContain(SENTINEL_KEY);
  });
});

describe('airlock token', () => {
  it('create prints only the token, stores its hash and a keychain copy; list and revoke', async () => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const created = await airlock(['token', 'create', 'claude', '--profile', 'work']);
    const token = created.stdout.trim();
    expect(token).toMatch(/^alk_[A-Za-z0-9_-]{43}$/);
    expect(secrets.entries.get('client-token:claude')).toBe(token);
    const file = readFileSync(path.join(dataDir, 'airlock.json'), 'utf8');
    expect(file).not.toContain(token);
    expect(file).toContain(sha256Hex(token));

    const listed = await airlock(['token', 'list']);
    expect(listed.stdout).toContain(`claude  pinned to work  ends in ${token.slice(-4)}`);
    expect(listed.stdout).not.toContain(token);

    expect((await airlock(['profile', 'remove', 'work'])).stderr).toContain('"claude"');
    expect((await airlock(['token', 'revoke', 'claude'])).exitCode).toBe(0);
    expect(secrets.entries.has('client-token:claude')).toBe(false);
    expect((await airlock(['token', 'list'])).stdout).toContain('No client tokens');
  });

  // A key or the token itself typed where the token's name goes: kept as the name, it was listed, shown in the window and
  // written as the client of every request; refused, it was repeated on the terminal.
  it.each([
    [['token', 'create', SENTINEL_KEY], /^airlock: the token name given looks like a key or token, and was not saved/],
    [['token', 'revoke', SENTINEL_KEY], /^airlock: no client token with the name given: it looks like a key or token/],
  ])('%j refuses a key as the token name without repeating it', async (args, message) => {
    await airlock(['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1']);
    const run = await airlock(args);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toMatch(message);
    expect(findSentinel(run.stdout + run.stderr)).toBeNull();
    expect(findSentinel(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8'))).toBeNull();
    expect([...secrets.entries.keys()].join('\n')).not.toContain(SENTINEL_KEY);
  });

  it('revoke does not repeat a client token pasted in place of its name', async () => {
    const token = (await airlock(['token', 'create', 'claude'])).stdout.trim();
    const run = await airlock(['token', 'revoke', token]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).not.toContain(token);
    expect((await airlock(['token', 'list'])).stdout).toContain('claude');
  });

  it('without a keychain, still creates the token and says only what it costs: it cannot be shown again', async () => {
    const created = await runAirlock(dataDir, unavailableSecretStore(), ['token', 'create', 'aider']);
    expect(created.exitCode).toBe(0);
    expect(created.stdout.trim()).toMatch(/^alk_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain(
      'warning: no OS keychain (Secret Service) is available (no D-Bus session), so the window cannot show this token again: copy it now. It works all the same.',
    );
    // AIRLOCK_API_KEY gives a gateway key for one run; it has nothing to do with a client token.
    expect(created.stderr).not.toContain('AIRLOCK_API_KEY');
    const revoked = await runAirlock(dataDir, unavailableSecretStore(), ['token', 'revoke', 'aider']);
    expect(revoked.exitCode).toBe(0);
    expect(revoked.stderr).toContain('The token no longer works all the same.');
    expect(revoked.stderr).not.toContain('AIRLOCK_API_KEY');
  });

  it.each([['bad name!'], ['']])('refuses the token name %j as a mistake in the command line (exit 2)', async (name) => {
    expect((await airlock(['token', 'create', name])).exitCode).toBe(2);
  });
});

describe('airlock limits', () => {
  it('shows the defaults, sets one limit and keeps the other, and the config file holds them', async () => {
    expect((await airlock(['limits'])).stdout).toContain('past 120 requests or 5 credits within a minute');

    const set = await airlock(['limits', '--requests-per-minute', '600']);
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toContain('past 600 requests or 5 credits within a minute');
    await airlock(['limits', '--credits-per-minute', '12.5']);

    const file = JSON.parse(readFileSync(path.join(dataDir, 'airlock.json'), 'utf8'));
    expect(file.settings.burstLimits).toEqual({ maxRequestsPerMinute: 600, maxCreditsPerMinute: 12.5 });
    expect((await airlock(['limits'])).stdout).toContain('past 600 requests or 12.5 credits within a minute');
  });

  it.each([
    [['limits', '--requests-per-minute', '0'], 'airlock: --requests-per-minute: must be above 0'],
    [['limits', '--requests-per-minute', '2.5'], 'airlock: --requests-per-minute: must be a whole number'],
    [['limits', '--credits-per-minute', 'lots'], 'airlock: --credits-per-minute: must be a number'],
  ])('refuses %j and leaves the limits as they were', async (args, message) => {
    const refused = await airlock(args);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(message);
    expect((await airlock(['limits'])).stdout).toContain('past 120 requests or 5 credits within a minute');
  });
});

describe('airlock as a command', () => {
  it.each([['--version'], ['-V']])('%s prints the package version', async (flag) => {
    const run = await airlock([flag]);
    expect(run).toEqual({ stdout: `${packageJson.version}\n`, stderr: '', exitCode: 0 });
  });

  it.each([
    [['profile', 'list'], '`npx airlock profile add <id>'],
    [['token', 'list'], '`npx airlock token create <name>'],
    [['profile', 'add', 'work', '--name', 'Work', '--base-url', 'https://gw.example/v1'], '`npx airlock key set work'],
  ])('%j hints at a command that runs after npm install', async (args, hint) => {
    const run = await airlock(args);
    expect(run.stdout + run.stderr).toContain(hint);
  });
});
