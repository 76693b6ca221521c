import { useEffect, useRef, useState } from 'react';
import type { ProfileView, SwitchCheckResponse } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { KeyField } from './KeyField.tsx';
import { KeyPoolField } from './KeyPoolField.tsx';
import { PriceEditor } from './PriceEditor.tsx';
import { ProfileEditor } from './ProfileEditor.tsx';
import { ProfileTestPanel } from './ProfileTestPanel.tsx';
import { FormError } from '../common/StateViews.tsx';
import { ConfirmChoice } from '../common/ConfirmChoice.tsx';
import { SwitchWarning, switchNeedsConfirmation } from './SwitchWarning.tsx';

/** What takes focus once the control it was on is gone (a closed question, a button become a badge). */
type FocusTarget = 'title' | 'remove' | 'activate';

/**
 * One existing profile: activate/remove, key, test, settings and prices. `focusTitle`: it was just
 * made by the form, whose Save button is gone with it, so its heading takes focus.
 */
export function ProfileDetail({
  view,
  focusTitle = false,
  onChanged,
  onDeleted,
}: {
  view: ProfileView;
  focusTitle?: boolean;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [switchCheck, setSwitchCheck] = useState<SwitchCheckResponse | null>(null);
  const id = view.profile.id;
  // Focus goes here once the next render has the control: it fell to the page, and a keyboard user to the window's top.
  const [refocus, setRefocus] = useState<FocusTarget | null>(focusTitle ? 'title' : null);
  const title = useRef<HTMLHeadingElement>(null);
  const removeButton = useRef<HTMLButtonElement>(null);
  const activateButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (refocus === null) return;
    ({ title, remove: removeButton, activate: activateButton })[refocus].current?.focus();
    setRefocus(null);
  }, [refocus]);

  // Its button becomes the active badge: focus waits on the heading, or goes back to the button if it failed.
  const activate = async () => {
    setError(null);
    setRefocus('title');
    try {
      await api.activateProfile(id);
      onChanged();
    } catch (caught) {
      setError((caught as Error).message);
      setRefocus('activate');
    }
  };
  // Gone when it worked (the screen gives focus to its list); back on Remove… when it did not.
  const remove = async () => {
    setConfirmingDelete(false);
    setError(null);
    try {
      await api.deleteProfile(id);
      onDeleted();
    } catch (caught) {
      setError((caught as Error).message);
      setRefocus('remove');
    }
  };
  const keep = () => {
    setConfirmingDelete(false);
    setRefocus('remove');
  };
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
        <h2 id="profile-title" ref={title} tabIndex={-1}>
          {view.profile.name}
        </h2>
        {view.active ? (
          <span className="badge">active</span>
        ) : (
          <button type="button" ref={activateButton} onClick={() => void startSwitch()}>
            Make active
          </button>
        )}
        {confirmingDelete ? (
          <ConfirmChoice
            question={`Remove ${view.profile.name}?`}
            warning="Its settings and prices go, and its keys leave the keychain."
            confirmLabel={`Remove ${view.profile.name} and its key`}
            cancelLabel="Keep it"
            onConfirm={() => void remove()}
            onCancel={keep}
          />
        ) : (
          <button type="button" ref={removeButton} onClick={() => setConfirmingDelete(true)}>
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
          onCancel={() => {
            setSwitchCheck(null);
            setRefocus('activate');
          }}
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
