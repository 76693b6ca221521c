import { lazy, Suspense, useEffect, useState } from 'react';
import { useApi } from './api/ApiContext.tsx';
import { ControlApiError, loginCodeFromHash } from './api/client.ts';
import { ErrorState, Loading } from './common/StateViews.tsx';
import { useHashRoute, type Screen } from './common/useHashRoute.ts';
import { ConnectScreen } from './connect/ConnectScreen.tsx';
import { LiveScreen } from './live/LiveScreen.tsx';
import { LiveStore } from './live/liveStore.ts';
import { useLiveChannel } from './live/useLiveChannel.ts';
import { ModelsScreen } from './models/ModelsScreen.tsx';
import { SignIn } from './status/SignIn.tsx';
import { StatusBar } from './status/StatusBar.tsx';

// Charts and form validation are large; load them when their screen is first opened.
const SpendScreen = lazy(async () => ({ default: (await import('./spend/SpendScreen.tsx')).SpendScreen }));
const ProfilesScreen = lazy(async () => ({ default: (await import('./profiles/ProfilesScreen.tsx')).ProfilesScreen }));

type Auth =
  | { kind: 'checking' }
  | { kind: 'signed-out'; problem: string | null }
  | { kind: 'signed-in' }
  | { kind: 'unreachable'; error: Error };

const NAV: { screen: Screen; label: string }[] = [
  { screen: 'live', label: 'Live' },
  { screen: 'spend', label: 'Spend' },
  { screen: 'profiles', label: 'Profiles' },
  { screen: 'models', label: 'Models' },
  { screen: 'connect', label: 'Connect' },
];

/**
 * Signs in with the one-time code from the URL fragment (then removes it from history), or finds an
 * existing session by asking for the status.
 */
function useSignIn(): [Auth, () => void] {
  const api = useApi();
  const [auth, setAuth] = useState<Auth>({ kind: 'checking' });
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is not read; changing it is how a retry asks for this effect again
  useEffect(() => {
    const code = loginCodeFromHash(window.location.hash);
    if (code) window.history.replaceState(null, '', `${window.location.pathname}#/live`);
    const exchange = code ? api.createSession({ code }) : Promise.resolve();
    exchange
      .then(() => api.status())
      .then(
        () => setAuth({ kind: 'signed-in' }),
        (error: Error) => {
          if (error instanceof ControlApiError && error.status === 401)
            setAuth({ kind: 'signed-out', problem: code ? error.message : null });
          else setAuth({ kind: 'unreachable', error });
        },
      );
  }, [api, attempt]);

  return [auth, () => setAttempt((count) => count + 1)];
}

export function App() {
  const api = useApi();
  const [auth, retry] = useSignIn();
  const [store] = useState(() => new LiveStore());
  const screen = useHashRoute();
  const live = useLiveChannel(api, store, auth.kind === 'signed-in');

  if (auth.kind === 'checking') return <Loading what="Airlock" />;
  if (auth.kind === 'signed-out') return <SignIn problem={auth.problem} onSignedIn={retry} />;
  if (auth.kind === 'unreachable') return <ErrorState error={auth.error} onRetry={retry} />;

  const proxyUrl = live.status?.proxyUrl ?? window.location.origin;
  const togglePause = () => {
    if (live.status) api.setPaused(!live.status.paused).then(live.refreshStatus, live.refreshStatus);
  };

  return (
    <div className="app">
      <header className="top">
        <h1>Airlock</h1>
        <nav aria-label="Screens">
          {NAV.map((item) => (
            <a key={item.screen} href={`#/${item.screen}`} aria-current={screen === item.screen ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
      </header>
      <main className="content">
        {screen === 'live' && <LiveScreen store={store} proxyUrl={proxyUrl} firstRun={live.status?.firstRun ?? null} />}
        <Suspense fallback={<Loading what="the screen" />}>
          {screen === 'spend' && <SpendScreen />}
          {screen === 'profiles' && <ProfilesScreen onChanged={live.refreshStatus} />}
        </Suspense>
        {screen === 'models' && <ModelsScreen />}
        {screen === 'connect' && <ConnectScreen proxyUrl={proxyUrl} />}
      </main>
      <StatusBar status={live.status} connected={live.connected} onTogglePause={togglePause} />
    </div>
  );
}
