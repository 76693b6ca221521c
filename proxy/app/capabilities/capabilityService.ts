import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Capability, CapabilityBadge } from '../../contracts/api.ts';
import { buildUpstreamHeaders } from '../../forward/headers.ts';
import { sendUpstream } from '../../forward/upstreamClient.ts';
import type { UpstreamTarget } from '../../contracts/ports.ts';
import { writeFileAtomic } from '../profiles/atomicWrite.ts';
import { capabilityProbes, interpretProbe, type CapabilityProbe } from './probes.ts';

export const CAPABILITIES_FILE_NAME = 'capabilities.json';
const PROBE_TIMEOUT_MS = 30_000;
const PROBE_BODY_LIMIT_CHARS = 256 * 1024;
const CAPABILITY_ORDER: Capability[] = ['chat', 'stream', 'tools', 'image_input', 'messages_native', 'responses_native'];

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
  /** For the planner: whether the gateway has been seen to speak this protocol for the model. */
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
    const response = await sendUpstream({
      url: new URL(`${target.profile.baseUrl}/${probe.path}`),
      method: 'POST',
      headers: buildUpstreamHeaders(probe.headers, target.apiKey, { contentLength: bytes.length, dropAnthropicHeaders: false }),
      body: [bytes],
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      connectTimeoutMs: target.profile.timeouts.connectTimeoutMs,
      idleTimeoutMs: PROBE_TIMEOUT_MS,
    });
    const bodyText = (await response.body.text()).slice(0, PROBE_BODY_LIMIT_CHARS);
    const contentType = response.headers['content-type'];
    return interpretProbe(probe.capability, {
      status: response.statusCode,
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
  nowMs?: () => number;
}): CapabilityService {
  const filePath = path.join(options.dataDir, CAPABILITIES_FILE_NAME);
  const nowMs = options.nowMs ?? Date.now;
  const file = readFile(filePath);
  const badges = (profileId: string, model: string): CapabilityBadge[] => file.profiles[profileId]?.[model] ?? unchecked();
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
      writeFileAtomic(filePath, `${JSON.stringify(file, null, 2)}\n`);
      return results;
    },
    nativeVerified(profileId, protocol, model) {
      const capability: Capability = protocol === 'messages' ? 'messages_native' : 'responses_native';
      return badges(profileId, model).some((badge) => badge.capability === capability && badge.supported === true);
    },
  };
}
