import { z } from 'zod';
import { chatBodyWithMaxCompletionTokens, refusesMaxTokens } from '../../protocols/chat/maxTokens.ts';
import type { Capability, CapabilityBadge } from '../../contracts/models.ts';
import { buildUpstreamHeaders } from '../../forward/headers.ts';
import { fetchUpstreamText } from '../../forward/upstreamClient.ts';
import type { UpstreamTarget } from '../../contracts/ports.ts';
import { keepJsonFile, type EntriesRead } from '../keptJsonFile.ts';
import { capabilityProbes, interpretProbe, type CapabilityProbe } from './probes.ts';

export const CAPABILITIES_FILE_NAME = 'capabilities.json';
const PROBE_TIMEOUT_MS = 30_000;
const PROBE_BODY_LIMIT_CHARS = 256 * 1024;
const CAPABILITY_ORDER: Capability[] = ['chat', 'stream', 'tools', 'image_input', 'messages_native', 'responses_native'];
/** A detection that found nothing either way (auth, rate limit, a fault, no answer) is tried again after this. */
const DETECTION_RETRY_MS = 10 * 60_000;

const FORMAT_VERSION = 1;

const fileSchema = z.object({ version: z.literal(FORMAT_VERSION), profiles: z.record(z.string(), z.unknown()) });
const badgesSchema = z.array(
  z.object({ capability: z.enum(CAPABILITY_ORDER), supported: z.boolean().nullable(), checkedAtMs: z.number().nullable() }),
);
/** Per profile id, per model: the badges last found. */
type CapabilityResults = Record<string, Record<string, CapabilityBadge[]>>;

export interface CapabilityService {
  badges(profileId: string, model: string): CapabilityBadge[];
  check(profileId: string, model: string): Promise<CapabilityBadge[]>;
  /**
   * For the planner: whether the gateway has been seen to speak this protocol for the model. Never
   * waits: in a profile whose mode for the protocol is `auto`, a model not yet checked for it gets
   * that one probe in the background, and its later requests go native if the gateway answered in
   * the protocol's own shape.
   */
  nativeVerified(profileId: string, protocol: 'messages' | 'responses', model: string): boolean;
  /** For the start notices: a capabilities.json that could not be wholly read, where it went, what was kept. */
  readonly startNotice: string | null;
}

function unchecked(): CapabilityBadge[] {
  return CAPABILITY_ORDER.map((capability) => ({ capability, supported: null, checkedAtMs: null }));
}

/** Model by model: one damaged result does not cost the others; a profile's that is no object at all counts as one. */
function readResults(json: unknown): EntriesRead<CapabilityResults> | null {
  const file = fileSchema.safeParse(json);
  if (!file.success) return null;
  const usable: CapabilityResults = {};
  let entries = 0;
  let unread = 0;
  for (const [profileId, models] of Object.entries(file.data.profiles)) {
    // Read as parsed, not through a zod record: its copy assigns `__proto__`, a model name like any other.
    if (typeof models !== 'object' || models === null || Array.isArray(models)) {
      entries += 1;
      unread += 1;
      continue;
    }
    const readable: Record<string, CapabilityBadge[]> = {};
    for (const [model, badges] of Object.entries(models)) {
      entries += 1;
      const parsed = badgesSchema.safeParse(badges);
      if (parsed.success)
        Object.defineProperty(readable, model, { value: parsed.data, enumerable: true, writable: true, configurable: true });
      else unread += 1;
    }
    usable[profileId] = readable;
  }
  return { usable, entries, unread };
}

async function runProbe(target: UpstreamTarget, probe: CapabilityProbe): Promise<boolean | null> {
  const send = (body: Record<string, unknown>, apiKey: string) => {
    const bytes = Buffer.from(JSON.stringify(body));
    return fetchUpstreamText({
      url: `${target.profile.baseUrl}/${probe.path}`,
      method: 'POST',
      headers: buildUpstreamHeaders(probe.headers, apiKey, { contentLength: bytes.length, droppedHeaderPrefixes: [] }),
      body: [bytes],
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      connectTimeoutMs: target.profile.timeouts.connectTimeoutMs,
      idleTimeoutMs: PROBE_TIMEOUT_MS,
    });
  };
  try {
    let answer = await send(probe.body, target.apiKey);
    // A model that takes only max_completion_tokens (OpenAI's reasoning models) refused the probe for its name alone.
    const renamed = refusesMaxTokens(answer.statusCode, answer.bodyText) ? chatBodyWithMaxCompletionTokens(probe.body) : null;
    if (renamed !== null) {
      // Sent once the first answer came: with the profile's key as it is then, not at all once it was removed.
      const apiKey = target.keyNow === undefined ? target.apiKey : target.keyNow(target.profile.id);
      if (apiKey === null) return null;
      answer = await send(renamed, apiKey);
    }
    const bodyText = answer.bodyText.slice(0, PROBE_BODY_LIMIT_CHARS);
    const contentType = answer.headers['content-type'];
    return interpretProbe(probe.capability, {
      status: answer.statusCode,
      contentType: typeof contentType === 'string' ? contentType : null,
      bodyText,
    });
  } catch {
    return null;
  }
}

/**
 * Runs the probes on demand (one at a time: they spend the user's credits, a few tokens each) and
 * keeps the results in `capabilities.json` in the data directory (keptJsonFile.ts: a file that
 * cannot be wholly read is moved aside, never written over; a failed write is reported).
 */
export function createCapabilityService(options: {
  dataDir: string;
  resolveTarget: (profileId: string) => UpstreamTarget | null;
  /** Says what went wrong that the user should know (a result that could not be written). */
  report: (message: string) => void;
  nowMs?: () => number;
}): CapabilityService {
  const nowMs = options.nowMs ?? Date.now;
  const file = keepJsonFile<CapabilityResults>({
    dataDir: options.dataDir,
    fileName: CAPABILITIES_FILE_NAME,
    readEntries: readResults,
    empty: {},
    what: 'capability results',
    // The results are a cache: a lost write costs their probes again, never the request or the process.
    lossOnFailedWrite: 'they are used until Airlock stops, and checked again after a restart',
    usedInstead: (kept) =>
      kept === 0
        ? 'capabilities are checked again: by a check in the window, or one probe per model for native Messages and Responses in auto mode'
        : `the ${kept} model results it held that could be read are used, the rest checked again`,
    report: options.report,
    nowMs: nowMs(),
  });
  const results = file.read;
  // Own entries only: a client's model named `constructor` or `__proto__` is not Object's.
  const badges = (profileId: string, model: string): CapabilityBadge[] => {
    const models = Object.hasOwn(results, profileId) ? results[profileId] : undefined;
    return models !== undefined && Object.hasOwn(models, model) ? models[model]! : unchecked();
  };
  const save = (): void => file.save({ version: FORMAT_VERSION, profiles: results });
  /** When each (profile, model, capability) detection last started, so a busy client sets off one probe, not one per request. */
  const detectionsStarted = new Map<string, number>();

  function detectNative(profileId: string, capability: Capability, model: string, protocol: 'messages' | 'responses'): void {
    const key = JSON.stringify([profileId, model, capability]);
    const startedAtMs = detectionsStarted.get(key);
    if (startedAtMs !== undefined && nowMs() - startedAtMs < DETECTION_RETRY_MS) return;
    const target = options.resolveTarget(profileId);
    if (target === null || target.profile.protocolModes[protocol] !== 'auto') return;
    const probe = capabilityProbes(model).find((candidate) => candidate.capability === capability);
    if (probe === undefined) return;
    detectionsStarted.set(key, nowMs());
    void runProbe(target, probe).then((supported) => {
      const current = badges(profileId, model).filter((badge) => badge.capability !== capability);
      const updated = [...current, { capability, supported, checkedAtMs: nowMs() }];
      updated.sort((a, b) => CAPABILITY_ORDER.indexOf(a.capability) - CAPABILITY_ORDER.indexOf(b.capability));
      results[profileId] = { ...results[profileId], [model]: updated };
      save();
    });
  }

  return {
    badges,
    async check(profileId, model) {
      if (!options.resolveTarget(profileId)) throw new Error(`profile "${profileId}" has no gateway key or does not exist`);
      const found: CapabilityBadge[] = [];
      for (const probe of capabilityProbes(model)) {
        // Each probe with the profile's key as it is then: the user may replace or remove it while the check runs
        // (a first probe's 401 says the key is wrong); once it is gone, what is left stays unknown.
        const target = options.resolveTarget(profileId);
        found.push({ capability: probe.capability, supported: target ? await runProbe(target, probe) : null, checkedAtMs: nowMs() });
      }
      results[profileId] = { ...results[profileId], [model]: found };
      save();
      return found;
    },
    startNotice: file.notice,
    nativeVerified(profileId, protocol, model) {
      const capability: Capability = protocol === 'messages' ? 'messages_native' : 'responses_native';
      const supported = badges(profileId, model).find((badge) => badge.capability === capability)?.supported ?? null;
      if (supported === null) detectNative(profileId, capability, model, protocol);
      return supported === true;
    },
  };
}
