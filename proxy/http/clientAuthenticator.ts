import type { IncomingHttpHeaders } from 'node:http';
import type { ConfigFile } from '../contracts/config.ts';
import type { ClientAuthenticator, ClientIdentity, LocalRefusal } from '../contracts/ports.ts';
import { CLIENT_TOKEN_PREFIX, findTokenRecord, presentedTokens } from './clientTokens.ts';
import { PLAIN_HINT, type NamedCommand } from '../contracts/cli.ts';
import { isRequestIdShaped } from '../core/requestId.ts';

export const ANONYMOUS_IDENTITY: ClientIdentity = Object.freeze({ tokenName: null, pinnedProfileId: null });

/** How a client gets its token, with the command named as this Airlock names it. */
function clientTokenHelp(command: NamedCommand): string {
  return (
    'Send your Airlock client token as "Authorization: Bearer <token>", "x-api-key: <token>" or "api-key: <token>" ' +
    `(set it as the API key in your tool). Create one with \`${command('token create <name>')}\`, ` +
    "or copy it from the Airlock window's Connect screen."
  );
}

/** The Bearer word alone, the header trimmed: a tool's empty API key. */
const EMPTY_BEARER = /^Bearer$/i;

/**
 * Why none of what was sent is a token of this Airlock, naming nothing of it (it may be the gateway
 * key: a tool set up before Airlock, or the key pasted where the token goes).
 */
function whyRefused(presented: readonly string[], headers: IncomingHttpHeaders): string {
  if (presented.length === 0) {
    const authorization = headers.authorization?.trim();
    // A tool whose API key setting is empty still sends the Bearer word (Continue's CLI 1.5.47 does).
    if (authorization !== undefined && EMPTY_BEARER.test(authorization))
      return 'The Authorization header sent has "Bearer" and no token after it: the tool\'s API key is empty.';
    // Sent, but in a form no token is read from (the token without its Bearer word, Basic): "none sent" sent the user looking for a missing setting.
    return authorization
      ? 'The Authorization header sent holds no "Bearer <token>", the only form Airlock reads a client token from there.'
      : 'No Airlock client token was sent.';
  }
  // Request ids start with alk_ too: one copied from the log is no revoked token.
  if (presented.some(isRequestIdShaped))
    return "This is an Airlock request id (from an answer's x-airlock-request-id), not a client token.";
  if (unknownClientToken(presented)) return 'This Airlock client token is unknown here (revoked, or made by another Airlock).';
  return (
    `The key sent is not an Airlock client token (those start with ${CLIENT_TOKEN_PREFIX}). If it is your gateway key: ` +
    'Airlock adds your gateway key itself, so give the tool an Airlock client token instead and take the gateway key out of its settings.'
  );
}

/** A token of some Airlock was sent (not a request id, not a gateway key) and this one does not know it. */
function unknownClientToken(presented: readonly string[]): boolean {
  return !presented.some(isRequestIdShaped) && presented.some((token) => token.startsWith(CLIENT_TOKEN_PREFIX));
}

/**
 * Client token -> identity, from the config snapshot (no I/O). When the user turned the token
 * requirement off, a request without a valid token is the anonymous identity; a valid token
 * still counts, so its pin is honoured. `settingsProblem` says why the file's settings are not
 * in use (ConfigStore.problem: a half-written or hand-broken airlock.json): a token not found
 * then may well be in the file, so the refusal names the file and its fix, where "unknown here,
 * create one" sent the user to `token create`, which a broken file refuses too.
 */
export function createClientAuthenticator(
  config: { snapshot(): ConfigFile },
  command: NamedCommand = PLAIN_HINT.command,
  settingsProblem: () => string | null = () => null,
): ClientAuthenticator {
  return {
    authenticate(headers: IncomingHttpHeaders): ClientIdentity | LocalRefusal {
      const snapshot = config.snapshot();
      const presented = presentedTokens(headers);
      for (const token of presented) {
        const record = findTokenRecord(token, snapshot.clientTokens);
        if (record) return { tokenName: record.name, pinnedProfileId: record.profileId, defaultModel: record.defaultModel ?? null };
      }
      if (!snapshot.settings.requireClientToken) return ANONYMOUS_IDENTITY;
      const problem = unknownClientToken(presented) ? settingsProblem() : null;
      return {
        status: 401,
        errorClass: 'client_unauthorized',
        code: 'client_unauthorized',
        // Named at each refusal: the command is masked with the secrets known then, read after this is made.
        message:
          problem === null
            ? `${whyRefused(presented, headers)} ${clientTokenHelp(command)}`
            : `Airlock could not read its settings, where client tokens are kept: ${problem}`,
        headers: { 'www-authenticate': 'Bearer realm="airlock"' },
      };
    },
  };
}
