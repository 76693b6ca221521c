import { useState } from 'react';
import type { ProfileView, SwitchCheckResponse } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { KeyField } from './KeyField.tsx';
import { KeyPoolField } from './KeyPoolField.tsx';
import { PriceEditor } from './PriceEditor.tsx';
import { ProfileEditor } from './ProfileEditor.tsx';
import { ProfileTestPanel } from './ProfileTestPanel.tsx';
import { FormError } from '../common/StateViews.tsx';
import { SwitchWarning, switchNeedsConfirmation } from './SwitchWarning.tsx';

/** One existing profile: activate/remove, key, test, settings and prices. */
export function ProfileDetail({ view, onChanged, onDeleted }: { view: ProfileView; onChanged: () => void; onDeleted: () => void }) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [switchCheck, setSwitchCheck] = useState<SwitchCheckResponse | null>(null);
  const id = view.profile.id;

  const run = async (action: () => Promise<unknown>, then: () => void) => {
    setError(null);
    try {
      await action();
      then();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  const activate = () => run(() => api.activateProfile(id), onChanged);
  // Asks the proxy what the switch would break first; only a harmless switch happens on the one click.
  const startSwitch = async () => {
    setError(null);
    try {
      const check = await api.switchCheck(id);
      if (switchNeedsConfirmation(check)) setSwitchCheck(check);
      else await activate();
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <article className="profile-detail" aria-labelledby="profile-title">
      <header className="screen-header">
        <h2 id="profile-title">{view.profile.name}</h2>
        {view.active ? (
          <span className="badge">active</span>
        ) : (
          <button type="button" onClick={() => void startSwitch()}>
            Make active
          </button>
        )}
        {confirmingDelete ? (
          <>
            <button type="button" className="danger" onClick={() => void run(() => api.deleteProfile(id), onDeleted)}>
              Remove {view.profile.name} and its key
            </button>
            <button type="button" onClick={() => setConfirmingDelete(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirmingDelete(true)}>
            Remove…
          </button>
        )}
      </header>
      <FormError message={error} />
      {switchCheck && (
        <SwitchWarning
          check={switchCheck}
          profileName={view.profile.name}
          onConfirm={() => {
            setSwitchCheck(null);
            void activate();
          }}
          onCancel={() => setSwitchCheck(null)}
        />
      )}
      {/* A pool's keys are each replaced in the pool's list; the single key field is for a profile with one key. */}
      {view.keyPool === undefined && <KeyField profileId={id} status={view.key} onChanged={onChanged} />}
      <KeyPoolField view={view} onChanged={onChanged} />
      <ProfileTestPanel profileId={id} />
      <ProfileEditor existing={view.profile} onSaved={onChanged} />
      <PriceEditor profileId={id} />
    </article>
  );
}
