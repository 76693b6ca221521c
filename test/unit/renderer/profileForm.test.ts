import { describe, expect, it } from 'vitest';
import { configFileSchema } from '../../../proxy/contracts/config.ts';
import { profileSchema, type Profile } from '../../../proxy/contracts/profile.ts';
import { requireProfile, updateProfile } from '../../../proxy/app/profiles/configMutations.ts';
import { formFromProfile, profileFromForm, profileSaveBody } from '../../../renderer/src/profiles/profileForm.ts';

const profile = profileSchema.parse({ id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1', maxRequestBodyMiB: 16 });

describe('the profile form’s request body limit', () => {
  it('shows the profile’s limit and keeps it through an edit of another field', () => {
    const form = formFromProfile(profile);
    expect(form.maxRequestBodyMiB).toBe('16');
    const result = profileFromForm({ ...form, name: 'Work gateway' }, profile);
    expect(result).toMatchObject({ ok: true, profile: { name: 'Work gateway', maxRequestBodyMiB: 16 } });
  });

  it('takes a new limit, and the default when left blank', () => {
    expect(profileFromForm({ ...formFromProfile(profile), maxRequestBodyMiB: '256' }, profile)).toMatchObject({
      ok: true,
      profile: { maxRequestBodyMiB: 256 },
    });
    expect(profileFromForm({ ...formFromProfile(profile), maxRequestBodyMiB: ' ' }, profile)).toMatchObject({
      ok: true,
      profile: { maxRequestBodyMiB: 64 },
    });
    expect(formFromProfile(null).maxRequestBodyMiB).toBe('64');
  });

  it.each([
    ['0', 'must be at least 1 MiB'],
    ['2.5', 'must be a whole number of MiB'],
    ['2000', 'must be at most 1024 MiB'],
    ['big', 'must be a number'],
  ])('names what is wrong with %j', (typed, message) => {
    expect(profileFromForm({ ...formFromProfile(profile), maxRequestBodyMiB: typed }, profile)).toEqual({
      ok: false,
      errors: { maxRequestBodyMiB: message },
    });
  });
});

describe('saving the profile form', () => {
  // The form was opened on `base`; meanwhile the price editor below it saved a price and
  // `airlock profile set work --max-body-mib 128` ran in a terminal. The user then renamed the profile.
  const base = profileSchema.parse({ id: 'work', name: 'Work', baseUrl: 'https://gw.example/v1', maxRequestBodyMiB: 16 });
  const savedElsewhere = profileSchema.parse({
    ...base,
    maxRequestBodyMiB: 128,
    prices: [{ model: 'gpt-4o', inputPer1M: 2.5, outputPer1M: 10 }],
    priceMultiplier: 1.5,
  });
  const configWith = (profile: Profile) => configFileSchema.parse({ version: 1, activeProfileId: 'work', profiles: [profile] });

  it('sends only the fields the user changed, so what was saved elsewhere meanwhile stands', () => {
    const result = profileSaveBody({ ...formFromProfile(base), name: 'Work gateway' }, base);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.body).toEqual({ name: 'Work gateway', expected: { name: 'Work' } });
    const { expected: _filledWith, ...changes } = result.body;
    const saved = requireProfile(updateProfile(configWith(savedElsewhere), 'work', changes), 'work');
    expect(saved).toEqual({ ...savedElsewhere, name: 'Work gateway' });
  });

  it('sends a changed group of settings whole with the value it replaces, and nothing when nothing changed', () => {
    const form = { ...formFromProfile(base), totalTimeoutMs: '60000', fallbacks: [{ from: '', to: 'gpt-4o-mini' }] };
    const result = profileSaveBody(form, base);
    expect(result).toEqual({
      ok: true,
      body: {
        timeouts: { ...base.timeouts, totalTimeoutMs: 60_000 },
        fallbacks: [{ model: 'gpt-4o-mini' }],
        // As the form was filled: a group changed elsewhere meanwhile is refused, not overwritten.
        expected: { timeouts: base.timeouts, fallbacks: [] },
      },
    });
    expect(profileSaveBody(formFromProfile(base), base)).toEqual({ ok: true, body: {} });
  });
});

// The fields are text (a number input dropped a decimal comma as it was typed: 1,5 became a cap of 15).
describe('numbers typed into the profile form', () => {
  it.each([
    ['1,5', 'budget.dailyCredits', "'1,5' has a comma: write the number with a decimal point"],
    ['10.000,50', 'budget.dailyCredits', "'10.000,50' has a comma"],
    ['€5', 'budget.dailyCredits', "'€5' is not a plain number: write digits and a decimal point only"],
    ['5 000', 'budget.dailyCredits', "'5 000' is not a plain number"],
    // Infinity, which the schema refused as "expected number, received Infinity".
    ['1e400', 'budget.dailyCredits', "'1e400' is too large to store"],
  ])('refuses %j by name, saving nothing', (typed, field, message) => {
    const result = profileFromForm({ ...formFromProfile(profile), dailyCredits: typed }, profile);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors[field]).toContain(message);
  });

  it('names a comma in the multiplier and a timeout too', () => {
    const result = profileFromForm({ ...formFromProfile(profile), priceMultiplier: '1,2', idleTimeoutMs: '300 000' }, profile);
    expect(!result.ok && Object.keys(result.errors).sort()).toEqual(['priceMultiplier', 'timeouts.idleTimeoutMs']);
  });

  it.each([
    ['.5', 0.5],
    [' 2.5 ', 2.5],
    ['1e3', 1000],
  ])('takes %j', (typed, value) => {
    expect(profileFromForm({ ...formFromProfile(profile), dailyCredits: typed }, profile)).toMatchObject({
      ok: true,
      profile: { budget: { dailyCredits: value } },
    });
  });
});
