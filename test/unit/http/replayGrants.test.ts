import { describe, expect, it } from 'vitest';
import type { ClientAuthenticator } from '../../../proxy/contracts/ports.ts';
import { ReplayGrants, withReplayGrants } from '../../../proxy/http/replayGrants.ts';

const clients: ClientAuthenticator = {
  authenticate: (headers) =>
    headers.authorization === 'Bearer alk_agent'
      ? { tokenName: 'agent', pinnedProfileId: null }
      : { status: 401, errorClass: 'client_unauthorized', message: 'Missing token. Send one.' },
};

describe('replay grants', () => {
  it('stand for their identity once, then are refused; client tokens work as before', () => {
    const grants = new ReplayGrants();
    const authenticator = withReplayGrants(clients, grants);
    const grant = grants.issue({ tokenName: 'agent', pinnedProfileId: 'main', replayOf: 'alk_1' });
    expect(grant).toMatch(/^alkr_/);
    expect(authenticator.authenticate({ authorization: `Bearer ${grant}` })).toEqual({
      tokenName: 'agent',
      pinnedProfileId: 'main',
      replayOf: 'alk_1',
    });
    expect(authenticator.authenticate({ authorization: `Bearer ${grant}` })).toMatchObject({
      status: 401,
      errorClass: 'client_unauthorized',
    });
    expect(authenticator.authenticate({ 'x-api-key': 'alkr_made-up' })).toMatchObject({ status: 401 });
    expect(authenticator.authenticate({ authorization: 'Bearer alk_agent' })).toEqual({ tokenName: 'agent', pinnedProfileId: null });
  });

  it('a revoked grant is refused', () => {
    const grants = new ReplayGrants();
    const grant = grants.issue({ tokenName: null, pinnedProfileId: 'main', replayOf: 'alk_2' });
    grants.revoke(grant);
    expect(withReplayGrants(clients, grants).authenticate({ authorization: `Bearer ${grant}` })).toMatchObject({ status: 401 });
  });
});
