import { useEffect, useRef, useState } from 'react';
import type { KeyStatus } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ConfirmChoice } from '../common/ConfirmChoice.tsx';
import { FormError } from '../common/StateViews.tsx';
import { useSaveAction } from '../common/useSaveAction.ts';
import { BusyButton, SubmitButton } from '../common/BusyButton.tsx';

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

  // Removing asks first: the key cannot be shown back, so a slip meant fetching it from the gateway console again.
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const [refocus, setRefocus] = useState<'input' | 'remove' | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (refocus === null) return;
    (refocus === 'input' ? input : removeButton).current?.focus();
    setRefocus(null);
  }, [refocus]);

  const run = (action: () => Promise<KeyStatus>) =>
    save.run(async () => {
      onChanged(await action());
      setDraft('');
      return null;
    });
  const remove = () => {
    setConfirmingRemove(false);
    // Its button goes with the key: focus waits in the field a new key is typed into.
    setRefocus('input');
    void run(() => api.deleteKey(profileId));
  };

  return (
    <fieldset className="key-field">
      <legend>Gateway key</legend>
      <p data-testid="key-status">{describeKey(status)}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!busy && draft.trim() !== '') void run(() => api.setKey(profileId, draft));
        }}
      >
        <label>
          {status.set ? 'Replace key' : 'Key'}
          <input
            ref={input}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
          />
        </label>
        <SubmitButton busy={busy} nothingToDo={draft.trim() === ''}>
          Save key
        </SubmitButton>
        {status.set &&
          (confirmingRemove ? (
            <ConfirmChoice
              question="Remove this profile's gateway key?"
              warning="It leaves the keychain and Airlock cannot show it back: using this profile again needs the key pasted from the gateway console."
              confirmLabel="Remove the key"
              cancelLabel="Keep it"
              disabled={busy}
              onConfirm={remove}
              onCancel={() => {
                setConfirmingRemove(false);
                setRefocus('remove');
              }}
            />
          ) : (
            <BusyButton ref={removeButton} busy={busy} onPress={() => setConfirmingRemove(true)}>
              Remove key
            </BusyButton>
          ))}
      </form>
      <FormError message={error} />
      <p className="muted">Stored in the OS keychain. Airlock never shows it, logs it or sends it anywhere but the gateway.</p>
    </fieldset>
  );
}
