import { useEffect, useRef, useState } from 'react';
import type { TokenView } from '../../../proxy/contracts/clientTokens.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ConfirmChoice } from '../common/ConfirmChoice.tsx';
import { FormError } from '../common/StateViews.tsx';

/** Existing client tokens: whether each can be shown again, lift a burst-guard pause, or revoke (after a confirmation). */
export function TokensTable({
  tokens,
  onChanged,
  onRevoked,
}: {
  tokens: TokenView[];
  onChanged: () => void;
  onRevoked: (name: string) => void;
}) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  // A closed confirmation gives focus back to the Revoke… button that opened it, once that is rendered again.
  const [refocusTrigger, setRefocusTrigger] = useState<string | null>(null);
  const triggers = useRef(new Map<string, HTMLButtonElement>());
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (refocusTrigger === null) return;
    triggers.current.get(refocusTrigger)?.focus();
    setRefocusTrigger(null);
  }, [refocusTrigger]);

  const run = (action: () => Promise<unknown>) => {
    setError(null);
    action().then(onChanged, (caught: Error) => setError(caught.message));
  };
  const keep = (name: string) => {
    setConfirming(null);
    setRefocusTrigger(name);
  };
  const revoke = (name: string) => {
    setConfirming(null);
    // Its row is going: focus waits on the list's heading rather than falling to the page.
    heading.current?.focus();
    setError(null);
    api.revokeToken(name).then(
      () => {
        onRevoked(name);
        onChanged();
      },
      (caught: Error) => {
        setError(caught.message);
        setRefocusTrigger(name);
      },
    );
  };

  return (
    <section className="tokens">
      <h3 ref={heading} tabIndex={-1}>
        Client tokens
      </h3>
      {tokens.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Profile</th>
              <th scope="col">Copy again</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((token) => (
              <tr key={token.name} data-token={token.name}>
                <th scope="row">{token.name}</th>
                <td>{token.pinnedProfileId ?? 'follows the active profile'}</td>
                <td>{token.revealable ? 'yes, from the keychain' : <span className="warn">no: shown once, at creation</span>}</td>
                <td>{token.paused ? <strong className="warn">paused by the burst guard</strong> : 'ok'}</td>
                <td className="token-actions">
                  {token.paused && (
                    <button type="button" onClick={() => run(() => api.resumeClient(token.name))}>
                      Resume
                    </button>
                  )}
                  {confirming === token.name ? (
                    <ConfirmChoice
                      question={`Revoke ${token.name}?`}
                      warning="Tools using it are refused at once."
                      confirmLabel={`Revoke ${token.name}`}
                      cancelLabel="Keep it"
                      onConfirm={() => revoke(token.name)}
                      onCancel={() => keep(token.name)}
                    />
                  ) : (
                    <button
                      type="button"
                      aria-label={`Revoke ${token.name}…`}
                      ref={(element) => {
                        if (element) triggers.current.set(token.name, element);
                        else triggers.current.delete(token.name);
                      }}
                      onClick={() => setConfirming(token.name)}
                    >
                      Revoke…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <FormError message={error} />
    </section>
  );
}
