import type { StoredRequest } from '../../contracts/log.ts';
import type { ReplayRefusalCode, ReplayRequest } from '../../contracts/replay.ts';
import { REDACTED } from '../../core/redact.ts';
import type { CommandHint } from '../../contracts/cli.ts';
import { isSideEffectRequest } from '../../spend/idempotencyRequest.ts';
import { isBinaryBodyDescription } from '../../store/write/bodyRecord.ts';

/**
 * Headers of the original sent again: what selects the API's behaviour. Left out: content-length
 * (recomputed), the agents' session ids (a replay is no turn of the agent's session), and the
 * SDKs' retry signals and user agents (`x-stainless-retry-count`, `ai-sdk/…`): nothing retries
 * a replay by itself, so Airlock's own retries apply as for curl.
 */
const REPLAYED_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'anthropic-beta',
  'anthropic-version',
  'content-type',
  'openai-beta',
  'openai-organization',
  'openai-version',
]);

export const REPLAY_USER_AGENT = 'airlock-replay';

/** What the replay sends, and as whom. */
export interface ReplayPlan {
  method: string;
  /** The path and query the client called. */
  clientPath: string;
  headers: Record<string, string>;
  body: string | null;
  profileId: string;
  clientName: string | null;
  edited: boolean;
}

export interface ReplayRefusal {
  code: ReplayRefusalCode;
  /** The cause and the fix, for the window and the CLI. */
  message: string;
}

export interface ReplayPlanInput {
  original: StoredRequest;
  request: ReplayRequest;
  /** The profiles that exist now, and the active one. */
  profileIds: readonly string[];
  activeProfileId: string | null;
  /** How a refusal names this Airlock in the commands it suggests. */
  commandHint: CommandHint;
}

const METHODS_WITHOUT_BODY = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

function refusal(code: ReplayRefusalCode, message: string): ReplayRefusal {
  return { code, message };
}

export function isReplayRefusal(value: ReplayPlan | ReplayRefusal): value is ReplayRefusal {
  return 'code' in value;
}

function isJsonContentType(contentType: string | undefined): boolean {
  return contentType === undefined || /\bjson\b/i.test(contentType);
}

/** The parse error of a JSON text, or null when it parses. */
export function jsonError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : 'not JSON';
  }
}

function chooseProfile(input: ReplayPlanInput): string | ReplayRefusal {
  const hint = input.commandHint;
  const wanted = input.request.profileId ?? input.original.row.profileId ?? input.activeProfileId;
  if (wanted !== null && input.profileIds.includes(wanted)) return wanted;
  const known = input.profileIds.length > 0 ? ` (profiles: ${input.profileIds.join(', ')})` : '';
  const cause =
    wanted === null
      ? 'There is no active profile to send it through'
      : wanted === input.request.profileId
        ? `No profile with id "${wanted}"`
        : // The active profile always exists (the config file's schema holds it to one): this is the original's.
          `Profile "${wanted}", which the original request used, does not exist any more`;
  return refusal(
    'no_profile',
    `${cause}. Choose a profile for the replay${known}: \`${hint.runningCommand('replay <id> --profile <id>')}\` or the window's profile menu.`,
  );
}

/** The body to send: the edit, else the logged body when it is whole and unmasked. */
function chooseBody(input: ReplayPlanInput, contentType: string | undefined): { body: string | null } | ReplayRefusal {
  const hint = input.commandHint;
  const { original, request } = input;
  const method = original.row.method.toUpperCase();
  const logged = original.bodies?.requestBody ?? null;
  // The window and the CLI send the logged text back as an edit when the user changed nothing.
  const edit = request.body === logged ? undefined : request.body;
  const body = edit ?? logged;
  if (edit === undefined) {
    if (original.bodies === null && !METHODS_WITHOUT_BODY.has(method))
      return refusal(
        'body_not_stored',
        "The log holds no body for this request (retention removed it, or bodies were not being logged when it ran). Paste the body to send in the window's editor, or pass it with `--body-file <file>`.",
      );
    if (original.bodies?.requestTruncated)
      return refusal(
        'body_truncated',
        `The log kept only the first part of this request's body (the size it keeps is Connect > Memory > Body kept per request, or \`${hint.command('memory --body-capture-kib <KiB>')}\`, for later requests), so resending it would send a cut-off request. Paste the whole body in the window's editor, or pass it with \`--body-file <file>\`.`,
      );
    if (logged !== null && isBinaryBodyDescription(logged))
      return refusal(
        'body_not_stored',
        "The log keeps only a description of this request's body (an upload such as audio, an image or a file is not logged), so resending it would send the description instead. Send the upload again from its client: a replay resends text bodies only.",
      );
  }
  if (body?.includes(REDACTED))
    return refusal(
      'body_redacted',
      `The body holds "${REDACTED}" where the log masked a secret or a long random-looking value (a key, a token, base64 data such as an image), so resending it would send the placeholder. Edit the body to put the real value back or remove it, then replay.`,
    );
  if (edit !== undefined && edit.trim() !== '' && isJsonContentType(contentType)) {
    const problem = jsonError(edit);
    if (problem !== null) return refusal('invalid_json', `The edited body is not valid JSON (${problem}). Correct it and replay again.`);
  }
  return { body: body === '' && METHODS_WITHOUT_BODY.has(method) ? null : body };
}

function replayedHeaders(logged: Record<string, string>, idempotencyKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': REPLAY_USER_AGENT };
  for (const [name, value] of Object.entries(logged)) {
    const lower = name.toLowerCase();
    if (REPLAYED_HEADERS.has(lower) && !value.includes(REDACTED)) headers[lower] = value;
  }
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return headers;
}

/**
 * Decides what a replay sends, or why it must not be sent: a body the log holds only in part
 * (cut at the capture limit, or with a value masked) is never sent as if whole, and an image or
 * video creation is replayed only under an idempotency key of its own.
 */
export function planReplay(input: ReplayPlanInput): ReplayPlan | ReplayRefusal {
  const { original, request } = input;
  const { row } = original;
  // Before the check below: a path masked whole no longer starts with a slash either.
  if (row.clientPath.includes(REDACTED))
    return refusal(
      'path_redacted',
      `The path holds "${REDACTED}" where the log masked an id or a value that looked like a key (a file, thread or response id, a token in the query), so the replay would call another address. Send the request again from its client.`,
    );
  if (!row.clientPath.startsWith('/'))
    return refusal(
      'not_a_request',
      'This row stands for requests whose own rows were lost (a full disk), so there is no request to resend. Replay one of the requests listed around it instead.',
    );
  const profileId = chooseProfile(input);
  if (typeof profileId !== 'string') return profileId;
  const idempotencyKey = request.idempotencyKey?.trim() || undefined;
  if (isSideEffectRequest(row.method, row.upstreamPath) && idempotencyKey === undefined)
    return refusal(
      'side_effect_without_key',
      "This creates a paid job (an image, video, batch or fine-tune): a replay runs it again at the gateway and is charged again, and the original's idempotency key is not logged. Give the replay an idempotency key of its own (the window's field, or `--idempotency-key <key>`); a repeat with that key is answered once.",
    );
  const logged = original.bodies?.requestHeaders ?? {};
  const contentType = Object.entries(logged).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const chosen = chooseBody(input, contentType);
  if ('code' in chosen) return chosen;
  const headers = replayedHeaders(logged, idempotencyKey);
  if (chosen.body !== null && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  return {
    method: row.method.toUpperCase(),
    clientPath: row.clientPath,
    headers,
    body: chosen.body,
    profileId,
    clientName: row.clientName,
    edited: request.body !== undefined && request.body !== (original.bodies?.requestBody ?? null),
  };
}
