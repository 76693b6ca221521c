import type { ConnectToolId } from '../../contracts/connect.ts';
import { isRecord } from '../../core/isRecord.ts';
import type { SettingsFormat } from './settingsUndo.ts';

/** Where a tool looks for its files: the home directory and the variables that move them. */
export interface ToolLocations {
  homeDir: string;
  env: NodeJS.ProcessEnv;
  /** Whether a path exists (a tool may accept two names for its file). */
  exists(path: string): boolean;
}

export interface ConnectSettings {
  /** The proxy's root URL, no trailing slash: `http://127.0.0.1:8642`. */
  proxyUrl: string;
  /** The client token made for this tool: the only secret Airlock writes. */
  token: string;
  /** The model the tool should ask for; left as the tool has it when absent. */
  model?: string | undefined;
  /** Remove the gateway key `gateway()` found (it was moved to the keychain). */
  dropGatewayKey?: boolean;
  /** The environment connect runs in: with a proxy set there, the tool's own NO_PROXY gets 127.0.0.1 (toolsProxyBypass.ts). */
  env?: NodeJS.ProcessEnv;
  /** When the setup runs, for a tool whose entries carry the time they were saved (Cline's `updatedAt`); now when absent. */
  nowMs?: number;
}

/** A tool's files as text, by role (`config`, `env`); null when the file does not exist. */
export type ToolFiles = Record<string, string | null>;

/** A gateway the tool's config points at, with a key written in the plain file. */
export interface FoundGateway {
  baseUrl: string;
  key: string;
  /** Where the key sits, for people. */
  location: string;
}

/**
 * One tool: where its files are and pure edits of their text. Each edit goes through the format's
 * own parser and keeps comments and keys Airlock does not own; a file that does not parse is
 * refused with a ConnectFileError, never overwritten.
 */
export interface ToolAdapter {
  id: ConnectToolId;
  title: string;
  /** Role to absolute path; the first role is the tool's main config file. */
  paths(locations: ToolLocations): Record<string, string>;
  /** The texts after connecting (roles left out stay as they are). */
  connect(files: ToolFiles, settings: ConnectSettings): ToolFiles;
  /** The token the files send to this Airlock, or null when they point elsewhere. */
  airlockToken(files: ToolFiles, proxyUrl: string): string | null;
  /**
   * The model id the files make the tool ask for, as the gateway receives it; null when they set
   * none and the tool would ask for its built-in default, which the gateway may not serve.
   */
  model(files: ToolFiles, proxyUrl: string): string | null;
  /** A gateway other than Airlock with a key in the files, or null. */
  gateway(files: ToolFiles, proxyUrl: string): FoundGateway | null;
  /** Every value the files hold under a key-, token- or password-like name: masked in previews. */
  secretValues(files: ToolFiles): string[];
  /** The settings that make the tool skip a proxy for Airlock, as `where=value`: connect says which it wrote. */
  proxyBypass?(files: ToolFiles): string[];
  /**
   * Set for a tool that reads a proxy exception only from the environment it starts in (none of its
   * files holds one): connect then says what to set in the shell, and `afterwards` what else it takes.
   */
  proxyBypassInShellOnly?: { afterwards: string | null };
  /** The roles whose files undo reads as settings, putting back each one Airlock changed (else it takes out Airlock's lines). */
  settingsFormats?: Record<string, SettingsFormat>;
}

/** A setup Airlock refuses, with the cause and the fix; `code` is the control API's error code. */
export class ConnectError extends Error {
  readonly code: 'invalid' | 'conflict' | 'not_found';

  constructor(code: 'invalid' | 'conflict' | 'not_found', message: string) {
    super(message);
    this.name = 'ConnectError';
    this.code = code;
  }
}

/** A tool's file that cannot be edited safely: the message names the file, the cause and the fix. */
export class ConnectFileError extends ConnectError {
  constructor(message: string) {
    super('conflict', message);
    this.name = 'ConnectFileError';
  }
}

/** The proxy's OpenAI-style base URL: OpenAI clients append `/chat/completions` or `/responses` to it. */
export function openAiBase(proxyUrl: string): string {
  return `${proxyUrl}/v1`;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True when `url` reaches this Airlock: a loopback host on its port, with or without `/v1`. */
export function isAirlockUrl(url: unknown, proxyUrl: string): boolean {
  if (typeof url !== 'string') return false;
  try {
    const candidate = new URL(url);
    const proxy = new URL(proxyUrl);
    const path = candidate.pathname.replace(/\/+$/, '');
    return LOOPBACK_HOSTS.has(candidate.hostname) && candidate.port === proxy.port && (path === '' || path === '/v1');
  } catch {
    return false;
  }
}

const SECRET_NAME = /(key|token|secret|password|auth|credential)/i;
/** Codex's `env_key` holds the name of a variable, not a secret. */
const VARIABLE_NAME = /^[A-Z][A-Z0-9_]*$/;
/** Shorter values are flags and placeholders; masking them would garble the preview. */
const MIN_SECRET_LENGTH = 8;

/** A value under a name that says it is a secret (`apiKey`, `ANTHROPIC_AUTH_TOKEN`), unless it names a variable. */
export function holdsSecret(name: string, value: string): boolean {
  return SECRET_NAME.test(name) && !VARIABLE_NAME.test(value);
}

/** The string values under secret-like names anywhere in a parsed document. */
export function secretsInTree(value: unknown, name = ''): string[] {
  if (typeof value === 'string') return holdsSecret(name, value) && value.length >= MIN_SECRET_LENGTH ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => secretsInTree(item, name));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, child]) => secretsInTree(child, key));
  }
  return [];
}

/**
 * What an imported key is replaced with in a backup, so undo puts back a file naming where the key
 * went. It is no key: the file is not offered for import again.
 */
export function movedKeyPlaceholder(profileId: string): string {
  return `${MOVED_KEY_PREFIX}${profileId}`;
}
const MOVED_KEY_PREFIX = 'moved-to-airlock-keychain-profile-';

/** A string that is a usable key: set, not a reference (environment, file, Continue's `${{ secrets.X }}`), nor Airlock's placeholder. */
export function plainKey(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (
    trimmed === '' ||
    /^\{(env|file):/.test(trimmed) ||
    /^\$\{?[A-Z_]/.test(trimmed) ||
    trimmed.startsWith('${{') ||
    trimmed.startsWith(MOVED_KEY_PREFIX)
  )
    return null;
  return trimmed;
}

/** A model id as a setting holds it: a non-blank string, else null. */
export function modelId(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

export function asRecord(value: unknown): Record<string, unknown> | null {
  return isRecord(value) ? value : null;
}
