import { memo, useEffect, useId, useRef, useState } from 'react';
import type { ProfileView } from '../../../proxy/contracts/profileViews.ts';
import type { RequestDetail } from '../../../proxy/contracts/requests.ts';
import type { ReplayRequest, ReplayResponse } from '../../../proxy/contracts/replay.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ControlApiError } from '../api/client.ts';
import { FormError } from '../common/StateViews.tsx';
import type { LiveRow } from '../live/liveRows.ts';
import type { FetchBody } from './bodyFetch.ts';
import { ReplayComparison } from './ReplayComparison.tsx';
import { editedBodyProblem } from './replayForm.ts';
import { BusyButton } from '../common/BusyButton.tsx';

/**
 * The body being edited. Memoised: the panel renders again at each delta of a replay that streams, and
 * React reads a controlled textarea's whole value each time it renders it (an agent's body is megabytes).
 */
const BodyEditor = memo(function BodyEditor({
  id,
  body,
  invalid,
  onEdit,
}: {
  id: string;
  body: string;
  invalid: boolean;
  onEdit: (body: string) => void;
}) {
  return (
    <textarea
      id={id}
      className="replay-editor"
      spellCheck={false}
      rows={12}
      value={body}
      onChange={(event) => onEdit(event.target.value)}
      aria-invalid={invalid}
    />
  );
});

type Phase = { kind: 'closed' } | { kind: 'editing' } | { kind: 'sending' } | { kind: 'done'; answer: ReplayResponse };

/**
 * Where focus goes once a phase's controls replaced the last one's: each button that moves the panel
 * on (Replay…, Cancel, Send replay, Edit and replay again) is gone after its click, and focus fell to
 * the page, a keyboard user back at the window's top.
 */
type FocusTarget = 'editor' | 'open' | 'heading';

/**
 * Replay in the request detail: the logged body in an editor (checked as JSON before it is sent),
 * sent again through the proxy, and the new answer beside the old.
 */
export function ReplayPanel({
  detail,
  fetchBody,
  running,
}: {
  detail: RequestDetail;
  /** The detail's fetch of its bodies, which the conversation and the body panel share. */
  fetchBody: FetchBody;
  running?: LiveRow | undefined;
}) {
  const api = useApi();
  const editorId = useId();
  const keyId = useId();
  const profileSelectId = useId();
  const [profiles, setProfiles] = useState<ProfileView[]>([]);
  const [profileId, setProfileId] = useState(detail.profileId ?? '');
  const [phase, setPhase] = useState<Phase>({ kind: 'closed' });
  const [loggedBody, setLoggedBody] = useState<string | null>(null);
  const [body, setBody] = useState('');
  const [idempotencyKey, setIdempotencyKey] = useState('');
  const [askKey, setAskKey] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const panel = useRef<HTMLElement>(null);
  const [refocus, setRefocus] = useState<FocusTarget | null>(null);
  useEffect(() => {
    if (refocus === null) return;
    const selector = { editor: `[id="${editorId}"]`, open: 'button', heading: 'h3' }[refocus];
    panel.current?.querySelector<HTMLElement>(selector)?.focus();
    setRefocus(null);
  }, [refocus, editorId]);

  const open = async () => {
    setError(null);
    let text = detail.requestBody?.text ?? null;
    if (text === null && detail.requestBody !== null) {
      try {
        text = (await fetchBody('request')).text;
      } catch (cause) {
        setError((cause as Error).message);
      }
    }
    // The profile menu is a convenience: without the list, the replay goes through the original's.
    api.profiles().then(
      (list) => {
        setProfiles(list.profiles);
        setProfileId((chosen) => (list.profiles.some(({ profile }) => profile.id === chosen) ? chosen : (list.activeProfileId ?? '')));
      },
      () => setProfiles([]),
    );
    setLoggedBody(text);
    setBody(text ?? '');
    setPhase({ kind: 'editing' });
    setRefocus('editor');
  };

  const send = async () => {
    // An unchanged body is the proxy's to judge: it says why a body the log cut cannot be sent.
    const unchanged = body === (loggedBody ?? '');
    const problem = unchanged ? null : editedBodyProblem(body, detail.requestBody?.contentType ?? null);
    if (problem !== null) {
      setError(problem);
      return;
    }
    const request: ReplayRequest = {
      ...(unchanged ? {} : { body }),
      ...(idempotencyKey.trim() ? { idempotencyKey: idempotencyKey.trim() } : {}),
      ...(profileId && profileId !== detail.profileId ? { profileId } : {}),
    };
    setError(null);
    setPhase({ kind: 'sending' });
    try {
      setPhase({ kind: 'done', answer: await api.replay(detail.id, request) });
      setRefocus('heading');
    } catch (cause) {
      if (cause instanceof ControlApiError && cause.field === 'idempotencyKey') setAskKey(true);
      setError((cause as Error).message);
      setPhase({ kind: 'editing' });
      setRefocus('editor');
    }
  };

  if (phase.kind === 'closed')
    return (
      <section aria-label="Replay" className="replay" ref={panel}>
        <button type="button" onClick={() => void open()}>
          Replay…
        </button>
      </section>
    );

  return (
    <section aria-label="Replay" className="replay" ref={panel}>
      <h3 tabIndex={-1}>Replay</h3>
      {phase.kind === 'done' ? (
        <>
          <ReplayComparison answer={phase.answer} />
          <button
            type="button"
            onClick={() => {
              setPhase({ kind: 'editing' });
              setRefocus('editor');
            }}
          >
            Edit and replay again
          </button>
        </>
      ) : (
        <>
          <p className="muted">
            Sent through the proxy as client {detail.clientName ?? '(no token)'} with profile {profileId || '(the active one)'}: budgets,
            the burst guard and the key apply as to any request.
          </p>
          {profiles.length > 1 && (
            <>
              <label htmlFor={profileSelectId}>Profile</label>
              <select id={profileSelectId} value={profileId} onChange={(event) => setProfileId(event.target.value)}>
                {profiles.map(({ profile }) => (
                  <option key={profile.id} value={profile.id}>
                    {profile.name}
                    {profile.id === detail.profileId ? ' (the original’s)' : ''}
                  </option>
                ))}
              </select>
            </>
          )}
          <label htmlFor={editorId}>Request body (JSON)</label>
          <BodyEditor id={editorId} body={body} invalid={error !== null} onEdit={setBody} />
          {askKey && (
            <>
              <label htmlFor={keyId}>Idempotency key for this replay</label>
              <input id={keyId} value={idempotencyKey} onChange={(event) => setIdempotencyKey(event.target.value)} />
            </>
          )}
          {phase.kind === 'sending' && running && (
            <section aria-label="Replay so far">
              <h4>Replay answer so far</h4>
              <pre className="stream-text live" data-testid="replay-live-text">
                {running.text || '(waiting for the first token)'}
              </pre>
            </section>
          )}
          <FormError message={error} />
          <div className="actions">
            <BusyButton className="primary" busy={phase.kind === 'sending'} onPress={() => void send()}>
              {phase.kind === 'sending' ? 'Replaying…' : 'Send replay'}
            </BusyButton>
            <BusyButton
              busy={phase.kind === 'sending'}
              onPress={() => {
                setPhase({ kind: 'closed' });
                setRefocus('open');
              }}
            >
              Cancel
            </BusyButton>
          </div>
        </>
      )}
    </section>
  );
}
