import type { ProtocolModeSetting } from '../contracts/profile.ts';

/**
 * `auto` means translate until the gateway has been seen to speak the protocol for this model
 * (the capability check): the gateway contract promises Chat Completions only (docs/gateway-spec.md §1, §4.3).
 */
export function chooseMode(setting: ProtocolModeSetting, nativeVerified: boolean): 'native' | 'translate' {
  if (setting === 'native') return 'native';
  if (setting === 'translate') return 'translate';
  return nativeVerified ? 'native' : 'translate';
}
