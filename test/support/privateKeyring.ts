import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A D-Bus session bus without service activation: a keyring this test stopped or killed stays
 * stopped or gone, instead of the bus starting a fresh (locked, empty) one behind its back.
 */
const BUS_CONFIG = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;

export interface PrivateKeyring {
  /** This process's environment with the private bus and a fresh HOME: give it to the children that use the keyring. */
  env: NodeJS.ProcessEnv;
  /** The D-Bus daemon this test started (SIGSTOP it for a bus that never answers). */
  bus: ChildProcess;
  /** The gnome-keyring-daemon this test started (SIGSTOP it for a Secret Service that hangs). */
  readonly keyring: ChildProcess;
  /** Ends the keyring daemon as a crash does, then starts another on the same bus and files (as a session restarts it). */
  restartKeyring(): Promise<void>;
  /** Locks the keyring's login collection, as a screen lock or a timeout does (Secret Service's Lock). */
  lock(): Promise<void>;
  /** Ends both daemons (by their process ids) and removes the HOME. */
  stop(): Promise<void>;
}

/**
 * A D-Bus session bus and an unlocked gnome-keyring of this test's own, so a test may stop or kill
 * them (by the process ids it holds) without touching the keyring the other keychain tests use.
 */
export async function startPrivateKeyring(): Promise<PrivateKeyring> {
  const home = mkdtempSync(path.join(tmpdir(), 'airlock-private-keyring-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_RUNTIME_DIR: path.join(home, 'runtime'),
  };
  mkdirSync(env.XDG_RUNTIME_DIR!, { mode: 0o700 });
  const configFile = path.join(home, 'bus.conf');
  writeFileSync(configFile, BUS_CONFIG);
  const bus = spawn('dbus-daemon', [`--config-file=${configFile}`, '--nofork', '--print-address=1'], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let address = '';
  for await (const chunk of bus.stdout!) {
    address += String(chunk);
    if (address.includes('\n')) break;
  }
  env.DBUS_SESSION_BUS_ADDRESS = address.trim();
  const ended = (child: ChildProcess): Promise<unknown> =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
  const startKeyring = async (): Promise<ChildProcess> => {
    const started = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    started.stdin!.end('test-keyring-password');
    // Serving once it owns its name on the bus (gdbus waits for that event; glib 2.72+).
    const waiter = spawn('gdbus', ['wait', '--session', '--timeout', '20', 'org.freedesktop.secrets'], { env, stdio: 'ignore' });
    const [waitCode] = await once(waiter, 'exit');
    if (waitCode !== 0)
      throw new Error(`gnome-keyring-daemon did not take org.freedesktop.secrets on the private bus (gdbus wait: ${waitCode})`);
    return started;
  };
  let keyring = await startKeyring();
  return {
    env,
    bus,
    get keyring() {
      return keyring;
    },
    async restartKeyring() {
      const exited = ended(keyring);
      keyring.kill('SIGKILL');
      await exited;
      keyring = await startKeyring();
    },
    async lock() {
      const locking = spawn(
        'gdbus',
        [
          'call',
          '--session',
          '--dest',
          'org.freedesktop.secrets',
          '--object-path',
          '/org/freedesktop/secrets',
          '--method',
          'org.freedesktop.Secret.Service.Lock',
          "['/org/freedesktop/secrets/collection/login']",
        ],
        { env, stdio: 'ignore' },
      );
      const [code] = await once(locking, 'exit');
      if (code !== 0) throw new Error(`gdbus could not lock the login collection (exit ${code})`);
    },
    async stop() {
      for (const child of [keyring, bus]) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = ended(child);
        child.kill('SIGCONT');
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
