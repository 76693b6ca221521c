import { describe, expect, it } from 'vitest';
import type { ClientAuthenticator, TargetRefusal, TargetResolver, UpstreamTarget } from '../../../proxy/contracts/ports.ts';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { admit } from '../../../proxy/forward/admit.ts';
import { DESKTOP_RESUME_WAY, pausedRefusal } from '../../../proxy/forward/ownRefusals.ts';
import { isHeld, type Admitted, type ForwardRequest, type HeldTarget } from '../../../proxy/forward/stageRecords.ts';

/** Which refusals of the request's own profile are admitted to walk its fallback list, and what goes on. */

const POOL_SECRET = 'sk-pool-secret-for-masking-0001';
const authenticator: ClientAuthenticator = { authenticate: () => ({ tokenName: 'agent', pinnedProfileId: null }) };
const request = { req: { headers: {} }, method: 'POST' } as unknown as ForwardRequest;
const profile = (fallbacks: unknown[]) => profileSchema.parse({ id: 'main', name: 'Main', baseUrl: 'https://x/v1', fallbacks });

function admitWith(resolved: UpstreamTarget | TargetRefusal) {
  const targets: TargetResolver = { resolve: () => resolved };
  return admit(request, { authenticator, targets, standingRefusal: () => null });
}

const cooling = (fallbacks: unknown[]): TargetRefusal => ({
  status: 429,
  errorClass: 'keys_cooling',
  message: 'every key cooling',
  headers: { 'retry-after': '60' },
  held: { profile: profile(fallbacks), secrets: [POOL_SECRET] },
});

describe('admit', () => {
  it('a pool whose keys all cool, on a profile with fallbacks, is admitted held: nothing to send, the 429 it stands for', () => {
    const { target } = admitWith(cooling([{ profileId: 'backup' }])) as Admitted;
    expect(isHeld(target)).toBe(true);
    expect(target).toMatchObject({ profile: { id: 'main' }, unsent: { kind: 'unsent', status: 429, errorClass: 'rate_limited' } });
    // The refusal the client gets if no step takes it carries no key.
    expect(JSON.stringify((target as HeldTarget).unsent.refusal)).not.toContain(POOL_SECRET);
  });

  it.each<[string, TargetRefusal]>([
    ['every key cooling, no fallback list', cooling([])],
    ['every key rejected, with a fallback list', { ...cooling([{ profileId: 'backup' }]), status: 403, errorClass: 'circuit_open' }],
    ['no key, nothing held', { status: 403, errorClass: 'no_key', message: 'no key' }],
  ])('%s: refused as before, the refusal without the pool’s keys', (_label, refusal) => {
    const refused = admitWith(refusal);
    expect(refused).toHaveProperty('refusal.errorClass', refusal.errorClass);
    expect(refused).not.toHaveProperty('refusal.held');
    expect(JSON.stringify(refused)).not.toContain(POOL_SECRET);
  });
});

describe('admit, a request asking to change protocol', () => {
  const withUpgrade = (upgrade: string) =>
    admit({ req: { headers: { connection: 'Upgrade', upgrade } }, method: 'GET' } as unknown as ForwardRequest, {
      authenticator,
      targets: { resolve: () => ({ profile: profile([]), apiKey: POOL_SECRET }) },
      standingRefusal: () => pausedRefusal(DESKTOP_RESUME_WAY),
    });

  it('a WebSocket handshake is answered 426 before anything else, and leaves no row', () => {
    expect(withUpgrade('websocket')).toMatchObject({ refusal: { status: 426 }, unlogged: true });
  });

  // curl --http2 on an http:// URL offers h2c and takes an HTTP/1.1 answer (RFC 9113 dropped the upgrade; RFC 7540 section 3.2 let servers ignore it).
  it('an h2c upgrade is not a WebSocket: it goes on as a plain request', () => {
    expect(withUpgrade('h2c')).toMatchObject({ refusal: { errorClass: 'proxy_paused' } });
  });
});
