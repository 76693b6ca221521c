import { z } from 'zod';
import { budgetSchema, PROFILE_ID_PATTERN, profileSchema } from './profile.ts';
import { MAX_TRACE_HEADERS, normalizeTraceHeaderName, traceHeaderNameProblem } from './traceHeaders.ts';

/**
 * The config file `airlock.json` in the data directory, shared by the desktop app, `airlock serve`
 * and the CLI. It holds no secret: gateway keys and client tokens live in the OS keychain; only
 * a client token's SHA-256 and last four characters are kept here.
 */
export const CONFIG_FILE_NAME = 'airlock.json';
export const CONFIG_VERSION = 1;
/**
 * Which Airlock's fields the file may hold. An Airlock that adds a field bumps it and writes it
 * (`configRevision`), so an older one, after a roll-back, can tell a newer one's settings (kept in
 * the file, not used, said) from a misspelt field (refused). Files without one are of revision 1,
 * and 1 is not written: an Airlock from before the field would refuse it as unknown.
 */
export const CONFIG_REVISION = 2;

export const CLIENT_TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const clientTokenRecordSchema = z.object({
  name: z.string().regex(CLIENT_TOKEN_NAME_PATTERN, 'letters, digits, ., - and _ (at most 64)'),
  /** null: the token follows the active profile; otherwise it is pinned to this profile. */
  profileId: z.string().regex(PROFILE_ID_PATTERN).nullable(),
  tokenSha256: z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits'),
  lastFour: z.string().length(4),
  createdAtMs: z.number().int().nonnegative(),
  defaultModel: z.string().min(1).optional(),
  /** Caps for this client on top of its profile's (the spend gate checks both). */
  budget: budgetSchema.optional(),
});

/**
 * Runaway protection per client token, over a sliding minute. The defaults suit one agent; many
 * parallel agents on one token may need more (a client past a limit stays paused until resumed).
 */
export const burstLimitsSchema = z.object({
  maxRequestsPerMinute: z.number('must be a number').int('must be a whole number').positive('must be above 0').default(120),
  maxCreditsPerMinute: z.number('must be a number').positive('must be above 0').default(5),
});

/**
 * Traces to an OpenTelemetry collector: one span per request, no bodies (proxy/app/export/). Off
 * unless the user gives an OTLP/HTTP endpoint; a base URL gets the standard `/v1/traces` path.
 */
export const traceExportSchema = z.object({
  otlpEndpoint: z
    .url({ protocol: /^https?$/, error: 'an http:// or https:// URL' })
    .nullable()
    .default(null),
  /**
   * Headers sent with each export (a collector's API key), lowercase: only the names are kept
   * here, each value is in the OS keychain (contracts/traceHeaders.ts).
   */
  headerNames: z
    .array(
      z.string().superRefine((name, ctx) => {
        const problem = name === normalizeTraceHeaderName(name) ? traceHeaderNameProblem(name) : `"${name}" must be lowercase`;
        if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .max(MAX_TRACE_HEADERS, `at most ${MAX_TRACE_HEADERS} headers`)
    .refine((names) => new Set(names).size === names.length, 'a header is named twice')
    .default([]),
  /**
   * Bumped whenever a header's value is set or removed in the keychain, so a running proxy in
   * another process reads the values again (the keychain itself cannot be watched).
   */
  headersRevision: z.number().int().nonnegative().default(0),
});

/**
 * An endpoint as the user gives it (the CLI, the window; null turns the export off), which may hold no credentials: a key in
 * the URL would sit in airlock.json, a plain file, and be shown back; a collector's key goes in a
 * header, whose value the OS keychain keeps. The file's schema above stays as it was, so a config
 * written before still loads.
 */
export const otlpEndpointInputSchema = traceExportSchema.shape.otlpEndpoint.unwrap().refine((endpoint) => {
  // zod runs this even when the URL check failed: that check's issue is the one to report, not URL's throw.
  if (endpoint === null || !URL.canParse(endpoint)) return true;
  const url = new URL(endpoint);
  return url.username === '' && url.password === '';
}, "the URL holds credentials (user:password@): remove them and send the collector's key as a trace export header, which the OS keychain keeps");

const wholeNumber = (min: number, max: number) =>
  z.number('must be a number').int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

const MAX_BODY_CAPTURE_KIB = 16 * 1024;

/**
 * What the request log may hold in memory (DESIGN.md, "What bounds memory held"). A running
 * proxy reads both at each request: a change applies to the next one.
 */
export const memoryLimitsSchema = z.object({
  /**
   * Work the log thread has not taken in yet (it yields every core to forwarding, so a load that
   * takes them all makes it fall behind): past half of it bodies are not kept, past all of it
   * requests are counted in spend summaries instead of rows of their own until it catches up.
   */
  logBacklogMiB: wholeNumber(8, 1024).default(64),
  /** Each request's and each answer's body is kept for the log up to this size; the rest is cut off and marked. */
  bodyCaptureKiB: wholeNumber(16, MAX_BODY_CAPTURE_KIB).default(1024),
});

export const settingsSchema = z.object({
  requireClientToken: z.boolean().default(true),
  burstLimits: burstLimitsSchema.default(burstLimitsSchema.parse({})),
  notifications: z.boolean().default(true),
  startAtLogin: z.boolean().default(false),
  traceExport: traceExportSchema.default(traceExportSchema.parse({})),
  memoryLimits: memoryLimitsSchema.default(memoryLimitsSchema.parse({})),
});

export const configFileSchema = z
  .object({
    // A later version is a file no Airlock of this one can read right (new fields are a revision instead).
    version: z.literal(CONFIG_VERSION, {
      error: (issue) =>
        typeof issue.input === 'number' && issue.input > CONFIG_VERSION
          ? `written by a newer Airlock (file version ${issue.input}; this one reads ${CONFIG_VERSION}): update Airlock`
          : `must be ${CONFIG_VERSION}`,
    }),
    configRevision: z.number().int().positive().optional(),
    activeProfileId: z.string().nullable().default(null),
    profiles: z.array(profileSchema).default([]),
    clientTokens: z.array(clientTokenRecordSchema).default([]),
    settings: settingsSchema.default(settingsSchema.parse({})),
    /**
     * Bumped whenever a gateway key is set or deleted in the keychain, so a running proxy in
     * another process knows to reload its in-memory keys (the keychain itself cannot be watched).
     */
    keysRevision: z.number().int().nonnegative().default(0),
  })
  .superRefine((config, ctx) => {
    const ids = new Set<string>();
    config.profiles.forEach((profile, index) => {
      if (ids.has(profile.id)) {
        ctx.addIssue({ code: 'custom', path: ['profiles', index, 'id'], message: `duplicate profile id "${profile.id}"` });
      }
      ids.add(profile.id);
    });
    if (config.activeProfileId !== null && !ids.has(config.activeProfileId)) {
      ctx.addIssue({ code: 'custom', path: ['activeProfileId'], message: `no profile has id "${config.activeProfileId}"` });
    }
    const names = new Set<string>();
    const hashes = new Set<string>();
    config.clientTokens.forEach((token, index) => {
      if (names.has(token.name)) {
        ctx.addIssue({ code: 'custom', path: ['clientTokens', index, 'name'], message: `duplicate token name "${token.name}"` });
      }
      names.add(token.name);
      // One value under two names (a hand edit): revoking one would leave the token working as the other.
      if (hashes.has(token.tokenSha256)) {
        ctx.addIssue({
          code: 'custom',
          path: ['clientTokens', index, 'tokenSha256'],
          message: `token "${token.name}" has the same value as another: remove one, or create a new token for it`,
        });
      }
      hashes.add(token.tokenSha256);
      if (token.profileId !== null && !ids.has(token.profileId)) {
        ctx.addIssue({ code: 'custom', path: ['clientTokens', index, 'profileId'], message: `no profile has id "${token.profileId}"` });
      }
    });
  });

export type ClientTokenRecord = z.infer<typeof clientTokenRecordSchema>;
export type Settings = z.infer<typeof settingsSchema>;
export type BurstLimits = z.infer<typeof burstLimitsSchema>;
export type TraceExportSettings = z.infer<typeof traceExportSchema>;
export type MemoryLimits = z.infer<typeof memoryLimitsSchema>;

const BYTES_PER_KIB = 1024;
export const logBacklogBytes = (limits: MemoryLimits): number => limits.logBacklogMiB * BYTES_PER_KIB * BYTES_PER_KIB;
export const bodyCaptureBytes = (limits: MemoryLimits): number => limits.bodyCaptureKiB * BYTES_PER_KIB;
/** The largest capture the setting allows: what the log thread cuts a stored body at, as a backstop. */
export const MAX_BODY_CAPTURE_BYTES = MAX_BODY_CAPTURE_KIB * BYTES_PER_KIB;
export type ConfigFile = z.infer<typeof configFileSchema>;

export function emptyConfig(): ConfigFile {
  return configFileSchema.parse({ version: CONFIG_VERSION });
}
