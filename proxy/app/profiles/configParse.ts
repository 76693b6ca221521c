import { findNodeAtLocation, parse as parseJsonc, parseTree, type ParseError } from 'jsonc-parser';
import { jsonSyntaxErrorAt, lineAndColumn } from '../../core/jsonSyntaxError.ts';
import type { z } from 'zod';
import { CONFIG_FILE_NAME, CONFIG_REVISION, configFileSchema, type ConfigFile } from '../../contracts/config.ts';
import { withoutByteOrderMark } from '../../core/byteOrderMark.ts';
import { isRecord } from '../../core/isRecord.ts';
import { redactSecrets } from '../../core/redact.ts';
import { PLAIN_HINT, type NamedCommand } from '../../contracts/cli.ts';
import { laterRevision, newerFieldsOf, withNewerValuesAside, type NewerFields } from './newerFields.ts';

export type ConfigParseResult = { ok: true; config: ConfigFile; newer: NewerFields | null } | { ok: false; message: string };

/**
 * Parses and validates the text of `airlock.json`. A failure names the field path and the line,
 * so a user who edited the file by hand can find the mistake, and a command it suggests as `command`
 * names it (the data directory's --data-dir).
 */
export function parseConfigText(fileText: string, command: NamedCommand = PLAIN_HINT.command): ConfigParseResult {
  // Windows editors may save UTF-8 with a byte order mark, which JSON.parse refuses as an invisible "InvalidSymbol".
  const text = withoutByteOrderMark(fileText);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: describeSyntaxError(text, error) };
  }
  const result = configFileSchema.safeParse(value);
  const aside = result.success ? { config: result.data, values: [] } : withNewerValuesAside(value);
  if (aside === null) {
    const issues = (result.error?.issues ?? [])
      .slice(0, 3)
      .map((issue) => describeIssue(text, issue))
      .join('; ');
    // A roll-back: the value is most likely right for the Airlock that wrote it. Changed here to load,
    // the newer Airlock gets the changed value back after the update (a price multiplier cut to 1000).
    const revision = laterRevision(value);
    const newer =
      revision === null
        ? ''
        : ` (a newer Airlock wrote this file, revision ${revision}; this one knows ${CONFIG_REVISION}: update Airlock to use it as it is)`;
    return { ok: false, message: `${issues}${newer}` };
  }
  const { config, values } = aside;
  const unknown = unknownFieldPaths(value, config);
  // A newer Airlock keeps no secret in the file either: a key typed in is refused whatever the revision,
  // inside a newer field too (kept through every save, it would stay in the file unsaid).
  // A value set aside is kept through saves as a newer field is: one holding a key's shape (a header's value typed in) is refused.
  const secrets = [
    ...unknown.flatMap((fieldPath) => secretFieldPaths(valueAt(value, fieldPath), fieldPath)),
    ...values.filter((fieldPath) => holdsSecretShape(valueAt(value, fieldPath))),
  ];
  const newer = secrets.length > 0 ? null : newerFieldsOf(value, unknown, values, config);
  if (unknown.length + values.length === 0 || newer !== null) return { ok: true, config, newer };
  return {
    ok: false,
    message: (secrets.length > 0 ? secrets : unknown)
      .slice(0, 3)
      .map((fieldPath) => describeField(text, fieldPath, unknownFieldProblem(value, fieldPath, command)))
      .join('; '),
  };
}

/**
 * Fields in the file that the schema dropped. Accepting them would ignore a misspelt setting
 * without a word, and the next save would delete it from the user's file.
 */
function unknownFieldPaths(raw: unknown, parsed: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(raw) && Array.isArray(parsed)) {
    return raw.flatMap((item, index) => unknownFieldPaths(item, parsed[index], [...at, index]));
  }
  if (!isRecord(raw) || !isRecord(parsed)) return [];
  return Object.keys(raw).flatMap((key) =>
    Object.hasOwn(parsed, key) ? unknownFieldPaths(raw[key], parsed[key], [...at, key]) : [[...at, key]],
  );
}

/** Field names a user gives a key or token they type into the file, compared without case, `-` or `_`. */
const SECRET_FIELD_NAMES = new Set([
  'apikey',
  'key',
  'gatewaykey',
  'openaiapikey',
  'token',
  'accesstoken',
  'secret',
  'password',
  'authorization',
  'bearer',
  'headers',
]);

function isSecretField(fieldPath: readonly (string | number)[]): boolean {
  return SECRET_FIELD_NAMES.has(String(fieldPath.at(-1)).toLowerCase().replace(/[-_]/g, ''));
}

/**
 * A bearer token, an sk- key or one of Airlock's client tokens (`alk_` and 43 base64url characters,
 * clientTokens.ts; a request id is 32 hex digits after it): what a user pastes as a key, and no Airlock
 * writes into this file (it keeps no secret there). Unlike redactSecrets' shapes, a hash is not one:
 * tokenSha256 is 64 hex digits, and a newer Airlock's field may hold such a hash, refused, the whole file went.
 */
const TYPED_KEY = /\b[Bb][Ee][Aa][Rr][Ee][Rr]\s+[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{12,}|\balk_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/;

/**
 * The paths of fields named as a key at `at` (an unknown field) or inside its `value`, and of any
 * text there holding a typed key (TYPED_KEY), whatever its field's name. Inside, where
 * a newer Airlock's setting may well be named `key` or `headers`, only one holding a key's shape
 * (what redactSecrets masks) counts: refusing the rest would take every setting away again.
 */
function secretFieldPaths(value: unknown, at: (string | number)[], inside = false): (string | number)[][] {
  if (isSecretField(at) && (!inside || holdsSecretShape(value))) return [at];
  if (typeof value === 'string' && TYPED_KEY.test(value)) return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => secretFieldPaths(item, [...at, index], true));
  if (!isRecord(value)) return [];
  return Object.keys(value).flatMap((key) => secretFieldPaths(value[key], [...at, key], true));
}

function holdsSecretShape(value: unknown): boolean {
  const text = JSON.stringify(value) ?? '';
  return redactSecrets(text) !== text;
}

function valueAt(raw: unknown, fieldPath: readonly (string | number)[]): unknown {
  let value = raw;
  for (const segment of fieldPath)
    value = Array.isArray(value) || isRecord(value) ? (value as Record<string, unknown>)[segment] : undefined;
  return value;
}

/**
 * A key typed into the file is refused like any unknown field, but told where it goes instead: "check
 * its spelling" would send the user to try `api_key` next. The value itself is never repeated.
 */
function unknownFieldProblem(raw: unknown, fieldPath: readonly (string | number)[], command: NamedCommand): string {
  if (!isSecretField(fieldPath) && !holdsSecretShape(valueAt(raw, fieldPath))) return 'unknown field: check its spelling, or remove it';
  const noSecret = `${CONFIG_FILE_NAME} holds no secret: remove this field, and`;
  if (fieldPath[0] === 'settings' && fieldPath[1] === 'traceExport') {
    return `${noSecret} give a collector's header with \`${command('export traces --header <name>')}\` (its value goes to the OS keychain)`;
  }
  const profile =
    fieldPath[0] === 'profiles' && typeof fieldPath[1] === 'number' && isRecord(raw) && Array.isArray(raw.profiles)
      ? raw.profiles[fieldPath[1]]
      : null;
  const profileId = isRecord(profile) && typeof profile.id === 'string' ? profile.id : '<profile>';
  return `${noSecret} store the gateway key in the OS keychain with \`${command(`key set ${profileId}`)}\` (or in the window's Profiles screen)`;
}

export function serializeConfig(config: ConfigFile): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

function describeSyntaxError(text: string, error: unknown): string {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return `${CONFIG_FILE_NAME} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  return `${CONFIG_FILE_NAME} is not valid JSON: ${jsonSyntaxErrorAt(text, first)}`;
}

function describeIssue(text: string, issue: z.core.$ZodIssue): string {
  return describeField(text, issue.path, issue.message);
}

function describeField(text: string, fieldPath: readonly PropertyKey[], problem: string): string {
  return `${CONFIG_FILE_NAME}: ${formatPath(fieldPath) || '(top level)'} (line ${lineOfPath(text, fieldPath)}): ${problem}`;
}

/** `profiles[0].baseUrl`: the form a user can match against the file. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`))
    .join('');
}

/** The line of the deepest node that exists along the path (a missing field points at its parent). */
function lineOfPath(text: string, path: readonly PropertyKey[]): number {
  const root = parseTree(text);
  if (!root) return 1;
  const segments = path.filter((segment): segment is string | number => typeof segment !== 'symbol');
  for (let depth = segments.length; depth >= 0; depth -= 1) {
    const node = findNodeAtLocation(root, segments.slice(0, depth));
    if (node) {
      // A property's value node starts after its key; point at the key, where the field is named.
      const offset = node.parent?.type === 'property' ? node.parent.offset : node.offset;
      return lineAndColumn(text, offset).line;
    }
  }
  return 1;
}
