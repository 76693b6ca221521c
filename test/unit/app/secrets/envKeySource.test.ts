import { describe, expect, it } from 'vitest';
import { EnvKeySource } from '../../../../proxy/app/secrets/envKeySource.ts';
import { SENTINEL_KEY } from '../../../support/sentinel.ts';

describe('EnvKeySource', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['  \n', null],
    [SENTINEL_KEY, SENTINEL_KEY],
    [`Bearer ${SENTINEL_KEY}\n`, SENTINEL_KEY],
    [`"${SENTINEL_KEY}"`, SENTINEL_KEY],
  ])('AIRLOCK_API_KEY=%j gives %j for its profile', (value, expected) => {
    const source = EnvKeySource.fromEnvironment({ AIRLOCK_API_KEY: value }, 'work');
    expect(source?.keyFor('work') ?? null).toBe(expected);
    expect(source?.keyFor('home') ?? null).toBeNull();
  });

  it('refuses a value that cannot be a key, without echoing it', () => {
    expect(() => EnvKeySource.fromEnvironment({ AIRLOCK_API_KEY: 'sk-a b c' }, 'work')).toThrowError(/^AIRLOCK_API_KEY: /);
    try {
      EnvKeySource.fromEnvironment({ AIRLOCK_API_KEY: 'sk-a b c' }, 'work');
    } catch (error) {
      expect(String(error)).not.toContain('sk-a b c');
    }
  });
});
