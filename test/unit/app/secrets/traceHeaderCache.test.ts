import { describe, expect, it } from 'vitest';
import { TraceHeaderCache } from '../../../../proxy/app/secrets/traceHeaderCache.ts';
import type { ConfigSource } from '../../../../proxy/app/configOverlay.ts';
import { emptyConfig, type ConfigFile } from '../../../../proxy/contracts/config.ts';
import { KeychainNotAnsweringError, KeychainUnavailableError, type SecretStore } from '../../../../proxy/contracts/secretStore.ts';
import { memorySecretStore } from '../../../support/memorySecretStore.ts';
import { TRACE_HEADER_SENTINEL } from '../../../support/sentinel.ts';

function configNaming(headerNames: string[]): ConfigSource {
  const settings = emptyConfig().settings;
  const config: ConfigFile = {
    ...emptyConfig(),
    settings: { ...settings, traceExport: { ...settings.traceExport, headerNames, headersRevision: 1 } },
  };
  return { snapshot: () => config, onChange: () => () => undefined };
}

describe('TraceHeaderCache when the keychain answers again', () => {
  it('tells the export only once the values were read, and a reading that throws stays inside', async () => {
    const stored = memorySecretStore();
    await stored.set('trace-header:x-honeycomb-team', TRACE_HEADER_SENTINEL);
    const answers: (() => Promise<string | null>)[] = [
      () => Promise.reject(new KeychainNotAnsweringError(30_000, 'read')),
      () => Promise.reject(new KeychainUnavailableError('the collection is locked')),
      () => Promise.reject(new Error('keytar: an unexpected failure')),
      () => stored.get('trace-header:x-honeycomb-team'),
    ];
    const answersAgain = new Set<() => void>();
    const readings: Promise<unknown>[] = [];
    const secrets: SecretStore = {
      ...stored,
      get: () => {
        const reading = (answers.shift() ?? (() => Promise.resolve(null)))();
        readings.push(reading.catch(() => undefined));
        return reading;
      },
      onAnswersAgain: (listener) => {
        answersAgain.add(listener);
        return () => answersAgain.delete(listener);
      },
    };
    const cache = new TraceHeaderCache(secrets);
    let told = 0;
    cache.onValuesReread(() => {
      told += 1;
    });
    const following = cache.follow(configNaming(['x-honeycomb-team']));
    await following.ready;
    const answerAgain = async (): Promise<void> => {
      for (const listener of answersAgain) listener();
      await Promise.all(readings);
      // The cache's own continuation runs after the reading settles.
      await new Promise((resolve) => setImmediate(resolve));
    };
    await answerAgain();
    expect(told).toBe(0);
    expect(cache.problem()).toMatch(/locked/);
    await answerAgain();
    expect(told).toBe(0);
    await answerAgain();
    expect(told).toBe(1);
    expect(cache.views(['x-honeycomb-team'])).toEqual([{ name: 'x-honeycomb-team', set: true, lastFour: TRACE_HEADER_SENTINEL.slice(-4) }]);
    following.stop();
  });
});
