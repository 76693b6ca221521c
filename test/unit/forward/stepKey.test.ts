import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { StepKey } from '../../../proxy/forward/stepKey.ts';

const profile = profileSchema.parse({ id: 'main', name: 'Main', baseUrl: 'https://gateway.example/v1' });
const FIRST = 'sk-step-key-first-0a1b2c3d4e5f6a7b8c9d';
const SECOND = 'sk-step-key-second-9f8e7d6c5b4a3f2e1d0c';

/** A target whose profile key the test changes, as the window or the CLI would while the request waits. */
function stepOn(initial: string | null) {
  let now: string | null = initial;
  const key = new StepKey({ profile, apiKey: FIRST, keyNow: () => now });
  return { key, setKey: (value: string | null) => (now = value) };
}

describe('StepKey', () => {
  it('keeps the key while the profile still has it', () => {
    const { key } = stepOn(FIRST);
    expect(key.followForResend()).toBe('kept');
    expect(key.apiKey).toBe(FIRST);
  });

  it('takes a replaced key, keeping the replaced one among the keys its answers are masked with', () => {
    const { key, setKey } = stepOn(FIRST);
    setKey(SECOND);
    expect(key.followForResend()).toBe('replaced');
    expect(key.apiKey).toBe(SECOND);
    expect(key.target.retiredKeys).toEqual([FIRST]);
    expect(key.masker.maskText(`${FIRST} ${SECOND}`)).not.toMatch(/sk-step-key/);
  });

  it('says a removed key is gone, and sends nothing new', () => {
    const { key, setKey } = stepOn(FIRST);
    setKey(null);
    expect(key.followForResend()).toBe('removed');
    expect(key.apiKey).toBe(FIRST);
  });

  it('keeps the key of a target whose key cannot change under it (no keyNow)', () => {
    const key = new StepKey({ profile, apiKey: FIRST, keyFromEnvironment: true });
    expect(key.followForResend()).toBe('kept');
  });

  it('gives a send outside the attempts the key as it is now, and no target once it was removed', () => {
    const { key, setKey } = stepOn(FIRST);
    setKey(SECOND);
    expect(key.targetNow()?.apiKey).toBe(SECOND);
    setKey(null);
    expect(key.targetNow()).toBeNull();
  });
});
