import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CONFIG_REVISION, configFileSchema } from '../../../proxy/contracts/config.ts';

/**
 * Every field of airlock.json by revision. An Airlock a user rolls back to refuses a field it does not
 * know unless the file's configRevision is above its own (profiles/newerFields.ts): a field added
 * without a new revision would take an older Airlock's settings away. Adding one: bump
 * CONFIG_REVISION and list the fields of the new revision here.
 */
const FIELDS_BY_REVISION: Record<number, readonly string[]> = {
  1: [
    'version',
    'configRevision',
    'activeProfileId',
    'profiles',
    'profiles.[].id',
    'profiles.[].name',
    'profiles.[].baseUrl',
    'profiles.[].modelAliases',
    'profiles.[].modelRoutes',
    'profiles.[].modelRoutes.[].pattern',
    'profiles.[].modelRoutes.[].target',
    'profiles.[].protocolModes',
    'profiles.[].protocolModes.messages',
    'profiles.[].protocolModes.responses',
    'profiles.[].timeouts',
    'profiles.[].timeouts.connectTimeoutMs',
    'profiles.[].timeouts.idleTimeoutMs',
    'profiles.[].timeouts.totalTimeoutMs',
    'profiles.[].retry',
    'profiles.[].retry.maxRetries',
    'profiles.[].retry.maxRetryAfterMs',
    'profiles.[].prices',
    'profiles.[].prices.[].model',
    'profiles.[].prices.[].inputPer1M',
    'profiles.[].prices.[].outputPer1M',
    'profiles.[].prices.[].cachedInputPer1M',
    'profiles.[].prices.[].cacheWritePer1M',
    'profiles.[].prices.[].cacheWrite1hPer1M',
    'profiles.[].prices.[].perCall',
    'profiles.[].prices.[].perAudioMinute',
    'profiles.[].priceMultiplier',
    'profiles.[].budget',
    'profiles.[].budget.dailyCredits',
    'profiles.[].budget.monthlyCredits',
    'profiles.[].budget.perRequestInputCredits',
    'profiles.[].maxRequestBodyMiB',
    'profiles.[].fallbacks',
    'profiles.[].fallbacks.[].profileId',
    'profiles.[].fallbacks.[].model',
    'profiles.[].keyPool',
    'profiles.[].keyPool.[].id',
    'profiles.[].keyPool.[].label',
    'clientTokens',
    'clientTokens.[].name',
    'clientTokens.[].profileId',
    'clientTokens.[].tokenSha256',
    'clientTokens.[].lastFour',
    'clientTokens.[].createdAtMs',
    'clientTokens.[].defaultModel',
    'clientTokens.[].budget',
    'clientTokens.[].budget.dailyCredits',
    'clientTokens.[].budget.monthlyCredits',
    'clientTokens.[].budget.perRequestInputCredits',
    'settings',
    'settings.requireClientToken',
    'settings.burstLimits',
    'settings.burstLimits.maxRequestsPerMinute',
    'settings.burstLimits.maxCreditsPerMinute',
    'settings.notifications',
    'settings.startAtLogin',
    'settings.traceExport',
    'settings.traceExport.otlpEndpoint',
    'settings.traceExport.headerNames',
    'settings.traceExport.headersRevision',
    'settings.memoryLimits',
    'settings.memoryLimits.logBacklogMiB',
    'settings.memoryLimits.bodyCaptureKiB',
    'keysRevision',
  ],
};
/** Revision 2 (session 34): video priced per second, speech per 1M characters, both counted before sending. */
const AFTER_PER_AUDIO_MINUTE = FIELDS_BY_REVISION[1]!.indexOf('profiles.[].prices.[].perAudioMinute') + 1;
FIELDS_BY_REVISION[2] = [
  ...FIELDS_BY_REVISION[1]!.slice(0, AFTER_PER_AUDIO_MINUTE),
  'profiles.[].prices.[].perVideoSecond',
  'profiles.[].prices.[].perMillionCharacters',
  ...FIELDS_BY_REVISION[1]!.slice(AFTER_PER_AUDIO_MINUTE),
];

/**
 * The field paths a schema takes (`[]` for an array's items, `{}` for a record's values: its keys are
 * the user's, not fields, but its values' fields are fields), through every union, intersection,
 * tuple and wrapper: a field added inside one is refused by an older Airlock as much as any.
 */
function fieldPaths(schema: z.core.$ZodType, at = ''): string[] {
  const def = schema._zod.def as z.core.$ZodTypeDef & {
    shape?: Record<string, z.core.$ZodType>;
    innerType?: z.core.$ZodType;
    element?: z.core.$ZodType;
    valueType?: z.core.$ZodType;
    options?: readonly z.core.$ZodType[];
    left?: z.core.$ZodType;
    right?: z.core.$ZodType;
    items?: readonly z.core.$ZodType[];
    getter?: () => z.core.$ZodType;
    in?: z.core.$ZodType;
  };
  if (def.type === 'object' && def.shape) {
    return Object.entries(def.shape).flatMap(([name, field]) => [`${at}${name}`, ...fieldPaths(field, `${at}${name}.`)]);
  }
  if (def.type === 'array' && def.element) return fieldPaths(def.element, `${at}[].`);
  if (def.type === 'record' && def.valueType) return fieldPaths(def.valueType, `${at}{}.`);
  const alternatives =
    def.type === 'union'
      ? def.options
      : def.type === 'intersection'
        ? [def.left, def.right]
        : def.type === 'tuple'
          ? def.items
          : def.type === 'lazy'
            ? [def.getter?.()]
            : undefined;
  if (alternatives) return [...new Set(alternatives.flatMap((option) => (option ? fieldPaths(option, at) : [])))];
  const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  return inner ? fieldPaths(inner, at) : [];
}

describe('CONFIG_REVISION', () => {
  it('names the fields this Airlock writes: a field added needs a new revision', () => {
    expect(Math.max(...Object.keys(FIELDS_BY_REVISION).map(Number))).toBe(CONFIG_REVISION);
    expect(fieldPaths(configFileSchema)).toEqual(FIELDS_BY_REVISION[CONFIG_REVISION]);
  });
});
