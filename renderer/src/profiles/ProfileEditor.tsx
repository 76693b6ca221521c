import { useRef, useState, type ReactNode } from 'react';
import type { Profile } from '../../../proxy/contracts/profile.ts';
import type { ProfileUpdateRequest, ProfileView } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ControlApiError } from '../api/client.ts';
import { BaseUrlField } from './BaseUrlField.tsx';
import { PairRowsEditor } from './PairRowsEditor.tsx';
import { formFromProfile, profileFromForm, profileSaveBody, type ProfileForm, type ProtocolModeSetting } from './profileForm.ts';
import { FormError } from '../common/StateViews.tsx';

interface ProfileEditorProps {
  /** null = a new profile. */
  existing: Profile | null;
  onSaved: (view: ProfileView) => void;
}

function NumberField({
  label,
  value,
  error,
  onChange,
  hint,
}: {
  label: string;
  value: string;
  error?: string;
  hint?: ReactNode;
  onChange: (value: string) => void;
}) {
  return (
    <label className="field">
      {label}
      {/* Text, not type=number: Chromium drops what a number input does not take as it is typed or pasted, so a
          decimal comma vanished (1,5 became 15, 10.000,50 became 10.0005); the form says what is wrong instead. */}
      <input
        type="text"
        inputMode="decimal"
        value={value}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint && <span className="hint">{hint}</span>}
      {error && <span className="field-error">{error}</span>}
    </label>
  );
}

const MODES: ProtocolModeSetting[] = ['auto', 'native', 'translate'];

/** The profile's settings; saving validates with the profile file's own schema first. */
export function ProfileEditor({ existing, onSaved }: ProfileEditorProps) {
  const api = useApi();
  const [form, setForm] = useState<ProfileForm>(() => formFromProfile(existing));
  // What the form was filled from: a save sends only what the user changed from it.
  const [base, setBase] = useState<Profile | null>(existing);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // A save refused because a field it changed was changed elsewhere (409): the refusal asks for a reload.
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  const nameField = useRef<HTMLInputElement>(null);
  const set = <K extends keyof ProfileForm>(key: K, value: ProfileForm[K]) => setForm((previous) => ({ ...previous, [key]: value }));

  const update = async (profile: Profile, changes: ProfileUpdateRequest): Promise<ProfileView> => {
    const saved = await api.updateProfile(profile.id, changes);
    // The answer holds what was saved elsewhere meanwhile too: the form shows it and the next save starts from it.
    setBase(saved.profile);
    setForm(formFromProfile(saved.profile));
    return saved;
  };

  /** The request the form's content makes, or null after showing why it cannot be sent. */
  const saveRequest = (): (() => Promise<ProfileView>) | null => {
    if (base) {
      const changes = profileSaveBody(form, base);
      if (changes.ok) return () => update(base, changes.body);
      setErrors(changes.errors);
      return null;
    }
    const created = profileFromForm(form, null);
    if (created.ok) return () => api.createProfile(created.profile);
    setErrors(created.errors);
    return null;
  };

  const save = async () => {
    const send = saveRequest();
    if (!send) return;
    setErrors({});
    setSaveError(null);
    setChangedElsewhere(false);
    setSaving(true);
    try {
      onSaved(await send());
    } catch (caught) {
      if (caught instanceof ControlApiError && caught.field) setErrors({ [caught.field]: caught.message });
      else setSaveError((caught as Error).message);
      setChangedElsewhere(caught instanceof ControlApiError && caught.code === 'conflict' && base !== null);
    } finally {
      setSaving(false);
    }
  };

  /** Fills the form again from the profile as the proxy now holds it; the user's edits are dropped, as the refusal says. */
  const reload = async (id: string) => {
    setSaveError(null);
    setChangedElsewhere(false);
    try {
      const current = (await api.profiles()).profiles.find((view) => view.profile.id === id);
      if (!current) throw new Error(`Profile "${id}" no longer exists: it was removed elsewhere.`);
      setBase(current.profile);
      setForm(formFromProfile(current.profile));
      setErrors({});
      // The reload button is gone: the keyboard goes on from the form's first field.
      nameField.current?.focus();
    } catch (caught) {
      setSaveError((caught as Error).message);
    }
  };

  return (
    <form
      className="profile-form"
      aria-label={existing ? `Edit profile ${existing.name}` : 'New profile'}
      onSubmit={(event) => {
        event.preventDefault();
        if (!saving) void save();
      }}
    >
      <fieldset>
        <legend>General</legend>
        <label className="field">
          Id
          <input
            value={form.id}
            disabled={existing !== null}
            aria-invalid={errors.id ? true : undefined}
            onChange={(event) => set('id', event.target.value)}
          />
          {errors.id && <span className="field-error">{errors.id}</span>}
        </label>
        <label className="field">
          Name
          <input
            ref={nameField}
            value={form.name}
            aria-invalid={errors.name ? true : undefined}
            onChange={(event) => set('name', event.target.value)}
          />
          {errors.name && <span className="field-error">{errors.name}</span>}
        </label>
        <BaseUrlField value={form.baseUrl} error={errors.baseUrl} onChange={(value) => set('baseUrl', value)} />
      </fieldset>
      <PairRowsEditor
        legend="Model aliases (exact)"
        fromLabel="Client model"
        toLabel="Gateway model id"
        rows={form.aliases}
        onChange={(rows) => set('aliases', rows)}
      />
      <PairRowsEditor
        legend="Model routes (wildcards, e.g. claude-*haiku*)"
        fromLabel="Pattern"
        toLabel="Gateway model id"
        rows={form.routes}
        onChange={(rows) => set('routes', rows)}
      />
      <PairRowsEditor
        legend="Fallbacks, tried in order when the gateway fails before answering (429, 5xx, timeouts)"
        fromLabel="Profile (blank: this one)"
        toLabel="Model (blank: the client's)"
        rows={form.fallbacks}
        onChange={(rows) => set('fallbacks', rows)}
      />
      <fieldset>
        <legend>Timeouts, retries and body size</legend>
        <NumberField
          label="Connect timeout (ms)"
          value={form.connectTimeoutMs}
          error={errors['timeouts.connectTimeoutMs']}
          onChange={(value) => set('connectTimeoutMs', value)}
        />
        <NumberField
          label="Idle timeout (ms)"
          value={form.idleTimeoutMs}
          error={errors['timeouts.idleTimeoutMs']}
          hint="Between bytes; keep it long, reasoning models pause."
          onChange={(value) => set('idleTimeoutMs', value)}
        />
        <NumberField
          label="Total timeout (ms)"
          value={form.totalTimeoutMs}
          error={errors['timeouts.totalTimeoutMs']}
          onChange={(value) => set('totalTimeoutMs', value)}
        />
        <NumberField
          label="Retries (0–3)"
          value={form.maxRetries}
          error={errors['retry.maxRetries']}
          hint="Only before the first byte reaches the client; waits of about 1, 2, 4 s."
          onChange={(value) => set('maxRetries', value)}
        />
        <NumberField
          label="Longest Retry-After to wait (ms)"
          value={form.maxRetryAfterMs}
          error={errors['retry.maxRetryAfterMs']}
          onChange={(value) => set('maxRetryAfterMs', value)}
        />
        <NumberField
          label="Request body limit (MiB)"
          value={form.maxRequestBodyMiB}
          error={errors.maxRequestBodyMiB}
          hint="Larger requests get a 413 and are not sent. Long contexts with images fit in 64."
          onChange={(value) => set('maxRequestBodyMiB', value)}
        />
      </fieldset>
      <fieldset>
        <legend>Budget (credits; blank = no cap)</legend>
        <NumberField
          label="Daily cap"
          value={form.dailyCredits}
          error={errors['budget.dailyCredits']}
          onChange={(value) => set('dailyCredits', value)}
        />
        <NumberField
          label="Monthly cap"
          value={form.monthlyCredits}
          error={errors['budget.monthlyCredits']}
          onChange={(value) => set('monthlyCredits', value)}
        />
        <NumberField
          label="Per-request input cap"
          value={form.perRequestInputCredits}
          error={errors['budget.perRequestInputCredits']}
          hint="Estimated input cost, checked before sending."
          onChange={(value) => set('perRequestInputCredits', value)}
        />
      </fieldset>
      <fieldset>
        <legend>Protocols</legend>
        {(['messagesMode', 'responsesMode'] as const).map((key) => (
          <label className="field" key={key}>
            {key === 'messagesMode' ? 'Anthropic Messages (/v1/messages)' : 'Responses (/v1/responses)'}
            <select value={form[key]} onChange={(event) => set(key, event.target.value as ProtocolModeSetting)}>
              {MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {mode === 'auto' ? 'auto (from the capability check)' : mode}
                </option>
              ))}
            </select>
          </label>
        ))}
      </fieldset>
      <FormError message={saveError} />
      {changedElsewhere && base && (
        <button type="button" onClick={() => void reload(base.id)}>
          Reload the profile
        </button>
      )}
      {Object.keys(errors).length > 0 && (
        <p className="field-error" role="alert">
          Check the marked fields: {Object.keys(errors).join(', ')}.
        </p>
      )}
      {/* Busy, not disabled: Chromium drops focus from a focused button that turns disabled. */}
      <button type="submit" className="primary" aria-disabled={saving || undefined} aria-busy={saving || undefined}>
        {existing ? 'Save profile' : 'Add profile'}
      </button>
    </form>
  );
}
