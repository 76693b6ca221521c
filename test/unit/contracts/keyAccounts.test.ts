import { describe, expect, it } from 'vitest';
import { FIRST_POOL_KEY_ID, gatewayKeyOfAccount, poolKeyAccount } from '../../../proxy/contracts/keyPool.ts';
import {
  CONTROL_TOKEN_ACCOUNT,
  clientTokenAccount,
  isGatewayKeyAccount,
  traceHeaderAccount,
} from '../../../proxy/contracts/secretStore.ts';

describe('keychain account names', () => {
  it.each([
    { account: poolKeyAccount('work', FIRST_POOL_KEY_ID), profileId: 'work', keyId: null },
    { account: poolKeyAccount('work', 'b'), profileId: 'work', keyId: 'b' },
    { account: 'work', profileId: 'work', keyId: null },
  ])('gatewayKeyOfAccount reads $account back', ({ account, profileId, keyId }) => {
    expect(gatewayKeyOfAccount(account)).toEqual({ profileId, keyId });
  });

  it.each([
    { account: 'work', gatewayKey: true },
    { account: poolKeyAccount('work', 'b'), gatewayKey: true },
    { account: clientTokenAccount('cursor'), gatewayKey: false },
    { account: traceHeaderAccount('x-honeycomb-team'), gatewayKey: false },
    { account: CONTROL_TOKEN_ACCOUNT, gatewayKey: false },
  ])('isGatewayKeyAccount($account) is $gatewayKey', ({ account, gatewayKey }) => {
    expect(isGatewayKeyAccount(account)).toBe(gatewayKey);
  });
});
