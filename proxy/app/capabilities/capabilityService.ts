import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Capability, CapabilityBadge } from '../../contracts/models.ts';
import { buildUpstreamHeaders } from '../../forward/headers.ts';
import { fetchUpstreamText } from '../../forward/upstreamClient.ts';
import type { UpstreamTarget } from '../../contracts/ports.ts';
import { writeFileAtomic } from '../profiles/atomicWrite.ts';
import { capabilityProbes, interpretProbe, type CapabilityProbe } from './probes.ts';

export const CAPABILITIES_FILE_NAME = 'capabilities.json';
const PROBE_TIMEOUT_MS = 30_000;
const PROBE_BODY_LIMIT_CHARS = 256 * 1024;
const CAPABILITY_ORDER: Capability[] = ['chat', 'stream', 'tools', 'image_input', 'messages_native', 'responses_native'];
/** A detection that found nothing either way (auth, rate limit, a fault, no answer) is tried again after this. */
const DETECTION_RETRY_MS = 10 * 60_000;

const fileSchema = z.object({
  version: z.literal(1),
  profiles: z.record(
    z.string(),
    z.record(
      z.string(),
      z.array(z.object({ capability: z.enum(CAPABILITY_ORDER), supported: z.boolean().nullable(), checkedAtMs: z.number().nullable() })),
    ),
  ),
});
type CapabilityFile = z.infer<typeof fileSchema>;

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
}

function unchecked(): CapabilityBadge[] {
  return CAPABILITY_ORDER.map((capability) => ({ capability, supported: null, checkedAtMs: null }));
}

function readFile(filePath: string): CapabilityFile {
  try {
    return fileSchema.parse(JSON.parse(readFileSync(filePath, 'utf8')));
  } catch {
    // Missing or unreadable: the results are a cache, re-checked on demand.
    return { version: 1, profiles: {} };
  }
}

async function runProbe(target: UpstreamTarget, probe: CapabilityProbe): Promise<boolean | null> {
  try {
    const bytes = Buffer.from(JSON.stringify(probe.body));
    const answer = await fetchUpstreamText({
      url: `${target.profile.baseUrl}/${probe.path}`,
      method: 'POST',
      headers: buildUpstreamHeaders(probe.headers, target.apiKey, { contentLength: bytes.length, droppedHeaderPrefixes: [] }),
      body: [bytes],
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      connectTimeoutMs: target.profile.timeouts.connectTimeoutMs,
      idleTimeoutMs: PROBE_TIMEOUT_MS,
    });
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
 * keeps the results in `capabilities.json` in the data directory.
 */
export function createCapabilityService(options: {
  dataDir: string;
  resolveTarget: (profileId: string) => UpstreamTarget | null;
  /** Says what went wrong that the user should know (a result that could not be written). */
  report: (message: string) => void;
  nowMs?: () => number;
}): CapabilityService {
  const filePath = path.join(options.dataDir, CAPABILITIES_FILE_NAME);
  const nowMs = options.nowMs ?? Date.now;
  const file = readFile(filePath);
  const badges = (profileId: string, model: string): CapabilityBadge[] => file.profiles[profileId]?.[model] ?? unchecked();
  const save = (): void => {
    try {
      writeFileAtomic(filePath, `${JSON.stringify(file, null, 2)}\n`);
    } catch (error) {
      // Thrown from the background probe it would be a rejection no one handles, which ends the
      // process; the results are a cache, so a failed write costs only their probes after a restart.
      options.report(
        `could not keep capability results in ${filePath} (${(error as Error).message}): they are used until Airlock stops, and checked again after a restart.`,
      );
    }
  };
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
      file.profiles[profileId] = { ...file.profiles[profileId], [model]: updated };
      save();
    });
  }

  return {
    badges,
    async check(profileId, model) {
      const target = options.resolveTarget(profileId);
      if (!target) throw new Error(`profile "${profileId}" has no gateway key or does not exist`);
      const results: CapabilityBadge[] = [];
      for (const probe of capabilityProbes(model)) {
        results.push({ capability: probe.capability, supported: await runProbe(target, probe), checkedAtMs: nowMs() });
      }
      file.profiles[profileId] = { ...file.profiles[profileId], [model]: results };
      save();
      return results;
    },
    nativeVerified(profileId, protocol, model) {
      const capability: Capability = protocol === 'messages' ? 'messages_native' : 'responses_native';
      const supported = badges(profileId, model).find((badge) => badge.capability === capability)?.supported ?? null;
      if (supported === null) detectNative(profileId, capability, model, protocol);
      return supported === true;
    },
  };
}
