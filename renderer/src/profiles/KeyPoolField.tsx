import { useEffect, useRef, useState } from 'react';
import type { ProfileView } from '../../../proxy/contracts/profileViews.ts';
import type { PoolKeyState, PoolKeyStatus } from '../../../proxy/contracts/keyPool.ts';
import { useApi } from '../api/ApiContext.tsx';
import { formatTimestamp } from '../common/format.ts';
import { FormError } from '../common/StateViews.tsx';
import { ConfirmChoice } from '../common/ConfirmChoice.tsx';
import { BusyButton, SubmitButton } from '../common/BusyButton.tsx';

/** What the gateway last said of a key, in words: the user sees why a key is left out and until when. */
export function describePoolKeyState(state: PoolKeyState): string {
  switch (state.state) {
    case 'ready':
      return 'ready';
    case 'cooling':
      return `rate limited by the gateway: left out until ${formatTimestamp(state.untilMs)}`;
    case 'rejected':
      return `rejected by the gateway (HTTP ${state.status}): left out, tried once more at ${formatTimestamp(state.retryAtMs)}; replace it if it was revoked`;
    case 'missing':
      return 'not in the keychain: replace it or remove it';
    case 'unread':
      return 'not read yet: the keychain has not given it to Airlock (see the keychain note); it may well be stored';
  }
}

function PoolKeyRow({
  entry,
  busy,
  act,
}: {
  entry: PoolKeyStatus;
  busy: boolean;
  act: (action: 'label' | 'secret' | 'remove', value?: string) => void;
}) {
  const [label, setLabel] = useState(entry.label);
  const [secret, setSecret] = useState('');
  // Removing asks first (the key cannot be shown back); Keep it gives focus back to the button that asked.
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const [refocusRemove, setRefocusRemove] = useState(false);
  const removeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!refocusRemove) return;
    removeButton.current?.focus();
    setRefocusRemove(false);
  }, [refocusRemove]);
  return (
    <li className="pool-key" data-testid={`pool-key-${entry.id}`}>
      <p>
        <strong>{entry.label}</strong> <code>{entry.id}</code>
        {entry.lastFour && <span className="muted"> ends in …{entry.lastFour}</span>} —{' '}
        <span data-testid="pool-key-state">{describePoolKeyState(entry.status)}</span>
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!busy && label.trim() !== '' && label !== entry.label) act('label', label);
        }}
      >
        <label>
          Label
          <input value={label} maxLength={60} onChange={(event) => setLabel(event.target.value)} />
        </label>
        <SubmitButton busy={busy} nothingToDo={label.trim() === '' || label === entry.label}>
          Rename
        </SubmitButton>
      </form>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (busy) return;
          if (secret.trim() !== '') act('secret', secret);
          setSecret('');
        }}
      >
        <label>
          Replace key
          <input type="password" autoComplete="off" spellCheck={false} value={secret} onChange={(event) => setSecret(event.target.value)} />
        </label>
        <SubmitButton busy={busy} nothingToDo={secret.trim() === ''}>
          Save key
        </SubmitButton>
        {confirmingRemove ? (
          <ConfirmChoice
            question={`Remove ${entry.label} from the pool?`}
            warning="It leaves the keychain and Airlock cannot show it back."
            confirmLabel={`Remove ${entry.label}`}
            cancelLabel="Keep it"
            disabled={busy}
            onConfirm={() => {
              setConfirmingRemove(false);
              act('remove');
            }}
            onCancel={() => {
              setConfirmingRemove(false);
              setRefocusRemove(true);
            }}
          />
        ) : (
          <BusyButton ref={removeButton} busy={busy} onPress={() => setConfirmingRemove(true)}>
            Remove from pool
          </BusyButton>
        )}
      </form>
    </li>
  );
}

/**
 * A profile's key pool: the keys used in turn, each by its label and id (never the key), with what
 * the gateway last said of it; a new key is typed once and only "ends in …" comes back. On a
 * profile with one key, the form adds a second and makes the pool.
 */
export function KeyPoolField({ view, onChanged }: { view: ProfileView; onChanged: () => void }) {
  const api = useApi();
  const id = view.profile.id;
  const [label, setLabel] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const pool = useRef<HTMLFieldSetElement>(null);

  const run = async (action: () => Promise<unknown>, then?: () => void) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await action();
      then?.();
      onChanged();
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const actOn = (keyId: string) => (action: 'label' | 'secret' | 'remove', value?: string) => {
    if (action === 'label') void run(() => api.relabelPoolKey(id, keyId, value ?? ''));
    else if (action === 'secret') void run(() => api.replacePoolKey(id, keyId, value ?? ''));
    else {
      // Its row goes: focus waits on the pool rather than falling to the page.
      pool.current?.focus();
      void run(() => api.removePoolKey(id, keyId));
    }
  };

  return (
    <fieldset className="key-pool" aria-label="Key pool" ref={pool} tabIndex={-1}>
      <legend>Key pool</legend>
      {view.keyPool ? (
        <ul data-testid="pool-keys">
          {view.keyPool.map((entry) => (
            <PoolKeyRow key={entry.id} entry={entry} busy={busy} act={actOn(entry.id)} />
          ))}
        </ul>
      ) : (
        <p className="muted">
          For a gateway that limits each key: add keys to use them in turn, and move on to the next when one is rate limited.
          {view.key.set && ' The key above becomes the pool’s first.'}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (busy || key.trim() === '') return;
          void run(
            () => api.addPoolKey(id, { key, ...(label.trim() ? { label } : {}) }),
            () => {
              setKey('');
              setLabel('');
            },
          );
        }}
      >
        <label>
          New key label
          <input value={label} maxLength={60} placeholder="e.g. team B" onChange={(event) => setLabel(event.target.value)} />
        </label>
        <label>
          New key
          <input type="password" autoComplete="off" spellCheck={false} value={key} onChange={(event) => setKey(event.target.value)} />
        </label>
        <SubmitButton busy={busy} nothingToDo={key.trim() === ''}>
          Add key to pool
        </SubmitButton>
      </form>
      <FormError message={error} />
    </fieldset>
  );
}
