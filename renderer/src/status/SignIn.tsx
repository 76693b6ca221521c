import { useState } from 'react';
import { CLI_COMMAND } from '../../../proxy/contracts/cli.ts';
import { useApi } from '../api/ApiContext.tsx';
import { FormError } from '../common/StateViews.tsx';

/** Shown when the window has no session: explains the login link, and accepts the control token instead. */
export function SignIn({ problem, onSignedIn }: { problem: string | null; onSignedIn: () => void }) {
  const api = useApi();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(problem);

  return (
    <main className="sign-in">
      <h1>Airlock</h1>
      <p>
        Open the link <code>{CLI_COMMAND} serve</code> printed in its terminal: it signs this browser in once. Links work for two minutes
        and only once; <code>{CLI_COMMAND} window</code> prints a fresh one.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          api.createSession({ controlToken: token.trim() }).then(onSignedIn, (caught: Error) => setError(caught.message));
        }}
      >
        <label>
          Or paste the control token
          <input type="password" autoComplete="off" value={token} onChange={(event) => setToken(event.target.value)} />
        </label>
        <button type="submit" disabled={token.trim() === ''}>
          Sign in
        </button>
      </form>
      <FormError message={error} />
    </main>
  );
}
