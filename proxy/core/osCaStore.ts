import tls from 'node:tls';
import { reportProcessProblem } from './processProblems.ts';

/**
 * Node's codes for a certificate chain that ends at no CA it trusts, as it gives them for a server
 * sending its certificate alone (UNABLE_TO_VERIFY_LEAF_SIGNATURE), with an intermediate
 * (UNABLE_TO_GET_ISSUER_CERT_LOCALLY), with its root (SELF_SIGNED_CERT_IN_CHAIN), or a self-signed
 * certificate (DEPTH_ZERO_SELF_SIGNED_CERT): each checked on Node 24 with a throwaway CA, and each
 * passed once that CA was in the OS store. An expired or misnamed certificate no store fixes.
 */
const UNKNOWN_ISSUER_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

export function isUnknownIssuerCode(code: string | null | undefined): code is string {
  return code != null && UNKNOWN_ISSUER_CODES.has(code);
}

let osStore: 'not_tried' | 'trusted' | 'unavailable' = 'not_tried';

/** Whether the OS store was tried (trusted, or it could not be read): a TLS failure after that is final. */
export function osCaStoreTried(): boolean {
  return osStore !== 'not_tried';
}

/** Whether every later TLS connection of this thread trusts the OS store's CAs too. */
export function osCaStoreTrusted(): boolean {
  return osStore === 'trusted';
}

/**
 * Adds the OS certificate store (Keychain, the Windows store, OpenSSL's file and directory) to
 * the CAs this thread's TLS connections trust, once: undici's Agents build no CA list of their own,
 * so their next connections use it. Not at start, where every user paid for it: 45-64 ms and
 * 5-12 MB, while most gateways have public certificates; and the packaged app cannot be given
 * NODE_EXTRA_CA_CERTS (its fuses drop NODE_OPTIONS, and that with it). Says on stderr that it did
 * and why; a store it cannot read is a process problem (a notice in the app). Returns whether the store is trusted now.
 */
export function trustOsCaStore(why: string): boolean {
  if (osStore !== 'not_tried') return osStore === 'trusted';
  try {
    const system = tls.getCACertificates('system');
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), ...system]);
    osStore = 'trusted';
    console.error(
      `[airlock] ${why}: loaded this computer's certificate store (${system.length} certificates) and trusting it from now on.`,
    );
  } catch (error) {
    osStore = 'unavailable';
    reportProcessProblem(
      'os_certificates_unreadable',
      `${why}, and this computer's certificate store could not be read: ${(error as Error).message}`,
    );
  }
  return osStore === 'trusted';
}
