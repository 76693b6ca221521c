import type { IncomingHttpHeaders } from 'node:http';
import type { ClientAuthenticator, ClientIdentity, LocalRefusal } from '../contracts/ports.ts';
import { generateToken, presentedTokens } from './clientTokens.ts';
import { PLAIN_HINT, type NamedCommand } from '../contracts/cli.ts';

/** Tells a replay grant from a client token at a glance; never written anywhere. */
const REPLAY_GRANT_PREFIX = 'alkr_';

/**
 * One-time credentials for replays. The control API sends a replay to the proxy's own address as
 * an ordinary request, so it meets every stage a client's request meets (budgets, burst guard,
 * idempotency, retries, key injection, the log); the grant it carries stands for the identity the
 * replay runs as (the original's client, the chosen profile, the request it resends). A grant
 * lives only while its replay is being sent, in this process's memory, and is good once.
 */
export class ReplayGrants {
  readonly #grants = new Map<string, ClientIdentity>();

  issue(identity: ClientIdentity & { replayOf: string }): string {
    const token = generateToken(REPLAY_GRANT_PREFIX);
    this.#grants.set(token, identity);
    return token;
  }

  /** The grant's identity, once; null for an unknown or used grant. */
  take(token: string): ClientIdentity | null {
    const identity = this.#grants.get(token) ?? null;
    this.#grants.delete(token);
    return identity;
  }

  revoke(token: string): void {
    this.#grants.delete(token);
  }
}

/** `runningCommand` names this Airlock's `replay`, which reaches the running proxy (its --port and --data-dir). */
function grantUsed(runningCommand: NamedCommand): LocalRefusal {
  return {
    status: 401,
    errorClass: 'client_unauthorized',
    code: 'client_unauthorized',
    message: `This replay grant was already used or withdrawn: replay the request again from the Airlock window or \`${runningCommand('replay <id>')}\`.`,
  };
}

/** Client tokens as before, and a request carrying a replay grant as the grant's identity. */
export function withReplayGrants(
  clients: ClientAuthenticator,
  grants: ReplayGrants,
  runningCommand: NamedCommand = PLAIN_HINT.runningCommand,
): ClientAuthenticator {
  const used = grantUsed(runningCommand);
  return {
    authenticate(headers: IncomingHttpHeaders): ClientIdentity | LocalRefusal {
      const [first] = presentedTokens(headers);
      if (first === undefined || !first.startsWith(REPLAY_GRANT_PREFIX)) return clients.authenticate(headers);
      return grants.take(first) ?? used;
    },
  };
}
