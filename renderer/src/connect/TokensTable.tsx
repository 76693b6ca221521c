import { useState } from 'react';
import type { TokenView } from '../../../proxy/contracts/clientTokens.ts';
import { useApi } from '../api/ApiContext.tsx';
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
  if (tokens.length === 0) return null;

  const run = (action: () => Promise<unknown>) => {
    setError(null);
    action().then(onChanged, (caught: Error) => setError(caught.message));
  };

  return (
    <section className="tokens">
      <h3>Client tokens</h3>
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
                  <fieldset className="confirm">
                    <legend className="visually-hidden">Confirm revoking {token.name}</legend>
                    <span className="warn">Tools using it are refused at once.</span>{' '}
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        setConfirming(null);
                        run(() => api.revokeToken(token.name).then(() => onRevoked(token.name)));
                      }}
                    >
                      Revoke {token.name}
                    </button>
                    <button type="button" onClick={() => setConfirming(null)}>
                      Keep it
                    </button>
                  </fieldset>
                ) : (
                  <button type="button" aria-label={`Revoke ${token.name}…`} onClick={() => setConfirming(token.name)}>
                    Revoke…
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <FormError message={error} />
    </section>
  );
}
