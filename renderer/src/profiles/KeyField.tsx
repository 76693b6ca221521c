import { useState } from 'react';
import type { KeyStatus } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { FormError } from '../common/StateViews.tsx';
import { useSaveAction } from '../common/useSaveAction.ts';

function describeKey(status: KeyStatus): string {
  if (status.unread)
    return 'Not read yet: the keychain has not given it to Airlock (see the keychain note). It may well be stored; a key saved now meets the same keychain.';
  if (!status.set) return 'Not set';
  const tail = status.lastFour ? `, ends in …${status.lastFour}` : '';
  // The environment's key wins for this run: a key saved here is used once Airlock runs without it.
  return status.fromEnvironment ? `From AIRLOCK_API_KEY for this run${tail}; a key saved here is used when that is not set` : `Set${tail}`;
}

/** Write-only key entry: the key goes to the keychain and only "set, ends in …" ever comes back. */
export function KeyField({
  profileId,
  status,
  onChanged,
}: {
  profileId: string;
  status: KeyStatus;
  onChanged: (status: KeyStatus) => void;
}) {
  const api = useApi();
  const [draft, setDraft] = useState('');
  const save = useSaveAction();
  const { busy, error } = save;

  const run = (action: () => Promise<KeyStatus>) =>
    save.run(async () => {
      onChanged(await action());
      setDraft('');
      return null;
    });

  return (
    <fieldset className="key-field">
      <legend>Gateway key</legend>
      <p data-testid="key-status">{describeKey(status)}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (draft.trim() !== '') void run(() => api.setKey(profileId, draft));
        }}
      >
        <label>
          {status.set ? 'Replace key' : 'Key'}
          <input type="password" autoComplete="off" spellCheck={false} value={draft} onChange={(event) => setDraft(event.target.value)} />
        </label>
        <button type="submit" disabled={busy || draft.trim() === ''}>
          Save key
        </button>
        {status.set && (
          <button type="button" disabled={busy} onClick={() => void run(() => api.deleteKey(profileId))}>
            Remove key
          </button>
        )}
      </form>
      <FormError message={error} />
      <p className="muted">Stored in the OS keychain. Airlock never shows it, logs it or sends it anywhere but the gateway.</p>
    </fieldset>
  );
}
