import { useRef, useState } from 'react';
import type { ProfileView } from '../../../proxy/contracts/profileViews.ts';
import { useApi } from '../api/ApiContext.tsx';
import { Empty, ErrorState, Loading } from '../common/StateViews.tsx';
import { useAsync } from '../common/useAsync.ts';
import { useSwitchCount } from '../common/useWhenBack.ts';
import { ProfileDetail } from './ProfileDetail.tsx';
import { ProfileEditor } from './ProfileEditor.tsx';

/** `created`: the form just made it, and its heading takes the focus the form's Save button had. */
type Selection = { kind: 'none' } | { kind: 'new' } | { kind: 'profile'; id: string; created?: true };

/**
 * `keychainProblem`: the status's keychain alarm. When it comes, changes or goes (the keychain
 * answered and the keys were read again), the list is read again: its keys and note follow.
 */
export function ProfilesScreen({
  onChanged,
  keychainProblem,
  activeProfileId,
}: {
  onChanged: () => void;
  keychainProblem: string | null;
  /** The status's: a switch from the tray moves the "active" mark and Make active. */
  activeProfileId: string | null | undefined;
}) {
  const api = useApi();
  const switches = useSwitchCount(activeProfileId);
  // A pooled key's state (rate limited, rejected) is the proxy's, kept in memory: a restarted one holds
  // others, so the list is read again when the window gets Airlock back.
  const list = useAsync(() => api.profiles(), `profiles:${keychainProblem ?? ''}:${switches}`, { readAgainWhenBack: true });
  const [selection, setSelection] = useState<Selection>({ kind: 'none' });
  const listHeading = useRef<HTMLHeadingElement>(null);

  const afterChange = (select: Selection) => {
    setSelection(select);
    list.reload();
    onChanged();
  };

  if (list.kind === 'loading') return <Loading what="profiles" />;
  if (list.kind === 'error') return <ErrorState error={list.error} onRetry={list.reload} />;
  const { profiles, keychain } = list.value;
  const selected: ProfileView | undefined =
    selection.kind === 'profile' ? profiles.find((view) => view.profile.id === selection.id) : undefined;

  return (
    <div className="screen profiles">
      <nav className="profile-list" aria-label="Profiles">
        <h2 ref={listHeading} tabIndex={-1}>
          Profiles
        </h2>
        {!keychain.available && (
          <p className="warn" role="alert">
            {keychain.message ?? 'No OS keychain: keys cannot be stored. Airlock uses AIRLOCK_API_KEY from the environment for this run.'}
          </p>
        )}
        <ul>
          {profiles.map((view) => (
            <li key={view.profile.id}>
              <button
                type="button"
                aria-current={selection.kind === 'profile' && selection.id === view.profile.id ? 'true' : undefined}
                onClick={() => setSelection({ kind: 'profile', id: view.profile.id })}
              >
                {view.profile.name} {view.active && <span className="badge">active</span>}{' '}
                {!view.key.set && <span className="badge warn">{view.key.unread ? 'key not read' : 'no key'}</span>}
              </button>
            </li>
          ))}
        </ul>
        <button type="button" className="primary" onClick={() => setSelection({ kind: 'new' })}>
          Add profile
        </button>
      </nav>
      <div className="profile-pane">
        {selection.kind === 'none' &&
          (profiles.length === 0 ? (
            <Empty title="No profiles yet">
              <p>A profile is one gateway account: its base URL, key, prices and limits. Add one to start.</p>
            </Empty>
          ) : (
            <Empty title="Choose a profile to edit, or add one." />
          ))}
        {selection.kind === 'new' && (
          <ProfileEditor
            key="new"
            existing={null}
            onSaved={(view) => afterChange({ kind: 'profile', id: view.profile.id, created: true })}
          />
        )}
        {selected && (
          <ProfileDetail
            key={selected.profile.id}
            view={selected}
            focusTitle={selection.kind === 'profile' && selection.created === true}
            onChanged={() => afterChange({ kind: 'profile', id: selected.profile.id })}
            onDeleted={() => {
              // The profile and its detail are gone: focus waits on the list rather than falling to the page.
              listHeading.current?.focus();
              afterChange({ kind: 'none' });
            }}
          />
        )}
      </div>
    </div>
  );
}
