import type { ConfigFile } from '../../contracts/config.ts';
import { KeychainUnavailableError, traceHeaderAccount, type SecretStore } from '../../contracts/secretStore.ts';
import {
  cleanTraceHeaderValue,
  MAX_TRACE_HEADERS,
  normalizeTraceHeaderName,
  traceHeaderNameProblem,
  traceHeaderValueProblem,
} from '../../contracts/traceHeaders.ts';
import { PLAIN_HINT, type CommandHint, type NamedCommand } from '../../contracts/cli.ts';
import { MIN_MASKED_KEY_CHARS } from '../../core/keyMasker.ts';
import { ConfigEditError } from '../profiles/configMutations.ts';
import type { ConfigMutator } from '../profiles/configStore.ts';

/**
 * The OTLP exporter also reads these (the OpenTelemetry exporter spec's variables, `name=value`
 * pairs split by commas, values percent-encoded): the way to send headers without a keychain.
 */
export const OTLP_HEADERS_ENV_VARS = ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'] as const;

/** The way to run without a keychain, for header values: `serve` as `hint` names this data directory's (and its port). */
export function traceHeadersFallback(hint: CommandHint): string {
  return `set OTEL_EXPORTER_OTLP_HEADERS (name=value,…) in the environment of \`${hint.runningCommand('serve')}\` for this run; Airlock never writes header values to a file`;
}

/** A name or value that cannot be a header: `field` says which, the message never quotes a value. */
export class TraceHeaderInputError extends Error {
  readonly field: 'name' | 'value';

  constructor(field: 'name' | 'value', message: string) {
    super(message);
    this.name = 'TraceHeaderInputError';
    this.field = field;
  }
}

interface TraceHeaderStores {
  secrets: SecretStore;
  config: { snapshot(): ConfigFile; update(mutator: ConfigMutator): Promise<ConfigFile> };
  /** How the keychain's fallback names `serve` (this data directory's); the plain command unless given. */
  hint?: CommandHint;
}

/** The name as stored (lowercase), or a TraceHeaderInputError saying what is wrong. */
export function traceHeaderNameOf(input: string): string {
  const name = normalizeTraceHeaderName(input);
  const problem = traceHeaderNameProblem(name);
  if (problem !== null) throw new TraceHeaderInputError('name', problem);
  return name;
}

/** The value as sent, or a TraceHeaderInputError saying what is wrong (without the value). */
export function traceHeaderValueOf(input: string): string {
  const value = cleanTraceHeaderValue(input);
  const problem = traceHeaderValueProblem(value);
  if (problem !== null) throw new TraceHeaderInputError('value', problem);
  return value;
}

function withTraceExport(config: ConfigFile, headerNames: string[]): ConfigFile {
  const traceExport = config.settings.traceExport;
  return {
    ...config,
    settings: { ...config.settings, traceExport: { ...traceExport, headerNames, headersRevision: traceExport.headersRevision + 1 } },
  };
}

/** Said when the keychain cannot be reached: the fix for header values, not for gateway keys. */
async function inKeychain<T>(call: () => Promise<T>, hint: CommandHint = PLAIN_HINT): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw error instanceof KeychainUnavailableError ? error.withFallback(traceHeadersFallback(hint)) : error;
  }
}

/**
 * Stores a header's value in the keychain, then names it in airlock.json and bumps the revision, so
 * a running export restarts with it (the next spans carry it). Without a keychain nothing changes.
 */
export async function setTraceHeader(stores: TraceHeaderStores, nameInput: string, valueInput: string): Promise<ConfigFile> {
  const name = traceHeaderNameOf(nameInput);
  const value = traceHeaderValueOf(valueInput);
  const addName = (config: ConfigFile): string[] => {
    const names = config.settings.traceExport.headerNames;
    if (names.includes(name)) return names;
    if (names.length >= MAX_TRACE_HEADERS) throw new ConfigEditError(`at most ${MAX_TRACE_HEADERS} trace export headers: remove one first`);
    return [...names, name];
  };
  // Checked before the keychain is written, and again under the file's lock.
  addName(stores.config.snapshot());
  await inKeychain(() => stores.secrets.set(traceHeaderAccount(name), value), stores.hint);
  return stores.config.update((config) => withTraceExport(config, addName(config)));
}

/** Deletes a header's value from the keychain and its name from airlock.json; the next spans go without it. */
export async function removeTraceHeader(stores: TraceHeaderStores, nameInput: string): Promise<ConfigFile> {
  const name = normalizeTraceHeaderName(nameInput);
  const names = stores.config.snapshot().settings.traceExport.headerNames;
  if (!names.includes(name)) throw new ConfigEditError(noSuchHeader(name, names));
  await inKeychain(() => stores.secrets.delete(traceHeaderAccount(name)), stores.hint);
  return stores.config.update((config) => {
    const current = config.settings.traceExport.headerNames;
    if (!current.includes(name)) throw new ConfigEditError(noSuchHeader(name, current));
    return withTraceExport(
      config,
      current.filter((candidate) => candidate !== name),
    );
  });
}

function noSuchHeader(name: string, names: readonly string[]): string {
  return `no trace export header "${name}"${names.length > 0 ? ` (headers: ${names.join(', ')})` : ''}`;
}

/** Why some named headers have no value, with the way to give it. */
export function missingHeadersProblem(names: readonly string[], command: NamedCommand): string {
  return (
    `the keychain holds no value for header ${names.join(', ')}: spans go without it. ` +
    `Set it again in Connect > Trace export, or with \`${command(`export traces --header ${names[0]}`)}\``
  );
}

/**
 * The texts a header value may be echoed as, to mask: the value, and for an `Authorization`-style
 * `<scheme> <credentials>` value the credentials alone. Shorter texts are no secret worth guarding
 * (Datadog's `compute_stats: true`), and masking them would cut common words out of the log.
 */
export function headerValueSecrets(value: string): string[] {
  const credentials = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*\s+(\S.*)$/.exec(value)?.[1];
  return [value, ...(credentials === undefined ? [] : [credentials])].filter((text) => text.length >= MIN_MASKED_KEY_CHARS);
}

/**
 * The header values the exporter takes from the environment (OTLP_HEADERS_ENV_VARS), as it
 * decodes them: each is masked like a value from the keychain.
 */
export function environmentHeaderSecrets(env: NodeJS.ProcessEnv): string[] {
  const secrets: string[] = [];
  for (const variable of OTLP_HEADERS_ENV_VARS) {
    for (const pair of (env[variable] ?? '').split(',')) {
      const separator = pair.indexOf('=');
      if (separator <= 0) continue;
      const raw =
        pair
          .slice(separator + 1)
          .split(';')[0]
          ?.trim() ?? '';
      let decoded = raw;
      try {
        decoded = decodeURIComponent(raw);
      } catch {
        // The exporter skips a pair it cannot decode; its raw text is still masked below.
      }
      secrets.push(...headerValueSecrets(decoded), ...(decoded === raw ? [] : headerValueSecrets(raw)));
    }
  }
  return secrets;
}
