import { API_KEY_ENV_VAR, cleanApiKey } from '../../core/apiKey.ts';
import { environmentHeaderSecrets, headerValueSecrets } from '../export/traceHeaders.ts';

/**
 * Every kind of secret Airlock knows for a data directory, by where it is read from. All are
 * required, so a new kind added here must be given by the running Airlock and by the CLI's log
 * reads alike: neither can forget it.
 */
export interface SecretSources {
  /** Every profile's gateway keys, pool keys included (and, where known, ones replaced lately). */
  gatewayKeys(): readonly string[];
  /** The control API's tokens. */
  controlTokens(): readonly string[];
  /** The trace export's header values from the keychain, as stored. */
  traceHeaderValues(): readonly string[];
  /** The process environment: AIRLOCK_API_KEY and the OTLP header variables the exporter reads. */
  env: NodeJS.ProcessEnv;
}

/**
 * The secrets to mask in what is logged and read back, in every form an echo may take. The
 * environment is read once (it does not change in a run); the other sources on every call.
 */
export function knownSecretsFrom(sources: SecretSources): () => string[] {
  const environmentKey = cleanApiKey(sources.env[API_KEY_ENV_VAR] ?? '');
  const fromEnvironment = [...(environmentKey.ok ? [environmentKey.key] : []), ...environmentHeaderSecrets(sources.env)];
  return () => [
    ...sources.gatewayKeys(),
    ...sources.controlTokens(),
    ...sources.traceHeaderValues().flatMap(headerValueSecrets),
    ...fromEnvironment,
  ];
}
