/**
 * The proxy as the desktop app runs it: in the Electron main process, with profiles from the
 * shared config file and keys read from the OS keychain here and nowhere else.
 *
 * In-process rather than in a utilityProcess: the keys then never cross a process boundary (a
 * utility process would need them sent over IPC or a second keychain reader), and the tray reads
 * paused state, in-flight count and lifecycle events directly without a mirrored state protocol.
 * The cost is that the proxy shares the main process's event loop; it is I/O-bound, its log
 * writes are batched off the request path, and the main process does little else.
 */
import { createClientAuthenticator } from '../proxy/access/clientAuthenticator.ts';
import { loadControlToken } from '../proxy/access/controlToken.ts';
import { createTargetResolver } from '../proxy/access/targetResolver.ts';
import type { ConfigFile } from '../proxy/contracts/config.ts';
import { type ConfigStore, openConfigStore } from '../proxy/profiles/configStore.ts';
import { KeyCache } from '../proxy/secrets/keyCache.ts';
import { createKeytarSecretStore } from '../proxy/secrets/keytarStore.ts';
import { clientTokenAccount, KeychainUnavailableError, type SecretStore } from '../proxy/secrets/secretStore.ts';
import { type ProxyHandle, startServer } from '../proxy/server/startServer.ts';

export interface DesktopRuntime {
  proxy: ProxyHandle;
  config: ConfigStore;
  controlToken: string;
  /** A client token to paste into a tool: the first one whose secret the keychain still holds. */
  readClientToken(): Promise<string | null>;
  stop(drainMs: number): Promise<void>;
}

export interface DesktopRuntimeOptions {
  dataDir: string;
  port: number;
}

export async function startDesktopRuntime(options: DesktopRuntimeOptions): Promise<DesktopRuntime> {
  const config = openConfigStore(options.dataDir, { watch: true });
  const secrets = createKeytarSecretStore();
  const keys = new KeyCache(secrets);
  const following = keys.follow(config);
  try {
    await following.ready;
    const keychainProblem = keys.keychainProblem();
    if (keychainProblem !== null) throw new KeychainUnavailableError(keychainProblem);
    const controlToken = await loadControlToken(secrets);
    const proxy = await startServer({
      port: options.port,
      services: { authenticator: createClientAuthenticator(config), targets: createTargetResolver(config, keys) },
    });
    return {
      proxy,
      config,
      controlToken: controlToken.token,
      readClientToken: () => firstClientToken(config.snapshot(), secrets),
      async stop(drainMs) {
        following.stop();
        config.close();
        await proxy.stop({ drainMs });
      },
    };
  } catch (error) {
    following.stop();
    config.close();
    throw error;
  }
}

async function firstClientToken(snapshot: ConfigFile, secrets: SecretStore): Promise<string | null> {
  for (const record of snapshot.clientTokens) {
    const token = await secrets.get(clientTokenAccount(record.name));
    if (token) return token;
  }
  return null;
}
