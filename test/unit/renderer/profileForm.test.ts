import { describe, expect, it } from 'vitest';
import { profileSchema } from '../../../proxy/contracts/profile.ts';
import { formFromProfile, profileFromForm } from '../../../renderer/src/profiles/profileForm.ts';

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
