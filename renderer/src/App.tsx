import { lazy, Suspense, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useApi } from './api/ApiContext.tsx';
import { ControlApiError, loginCodeFromHash } from './api/client.ts';
import { ReconnectContext, ScreenBoundary } from './common/ScreenBoundary.tsx';
import { Loading } from './common/StateViews.tsx';
import { useHashRoute, type Screen } from './common/useHashRoute.ts';
import { ConnectScreen } from './connect/ConnectScreen.tsx';
import { LiveScreen } from './live/LiveScreen.tsx';
import { LiveStore } from './live/liveStore.ts';
import { useLiveChannel } from './live/useLiveChannel.ts';
import { ModelsScreen } from './models/ModelsScreen.tsx';
import { SessionsScreen } from './sessions/SessionsScreen.tsx';
import { SignIn } from './status/SignIn.tsx';
import { StatusBar } from './status/StatusBar.tsx';

// Charts and form validation are large; load them when their screen is first opened (or once the
// window is idle after sign-in, so a proxy that goes away later does not leave them unloadable).
const loadSpend = () => import('./spend/SpendScreen.tsx');
const loadProfiles = () => import('./profiles/ProfilesScreen.tsx');

/** New lazy components per `generation`: React keeps a failed lazy() failed, so a retry needs fresh ones. */
function useLazyScreens(generation: number) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` is not read; a new one is what asks for fresh components
  return useMemo(
    () => ({
      SpendScreen: lazy(async () => ({ default: (await loadSpend()).SpendScreen })),
      ProfilesScreen: lazy(async () => ({ default: (await loadProfiles()).ProfilesScreen })),
    }),
    [generation],
  );
}

/** Why the sign-in page is back in a window that was signed in. */
const SESSION_ENDED = 'This window’s session with Airlock has ended (a session lasts a working day). Sign in again to go on.';

/** Wait before asking an unreachable proxy again at start. */
const START_RETRY_MS = 2_000;

type Auth =
  | { kind: 'checking' }
  | { kind: 'signed-out'; problem: string | null }
  | { kind: 'signed-in' }
  | { kind: 'unreachable'; error: Error };

const NAV: { screen: Screen; label: string }[] = [
  { screen: 'live', label: 'Live' },
  { screen: 'sessions', label: 'Sessions' },
  { screen: 'spend', label: 'Spend' },
  { screen: 'profiles', label: 'Profiles' },
  { screen: 'models', label: 'Models' },
  { screen: 'connect', label: 'Connect' },
];

/**
 * Signs in with the one-time code from the URL fragment (then removes it from history), or finds an
 * existing session by asking for the status.
 */
function useSignIn(): [Auth, () => void, () => void] {
  const api = useApi();
  const [auth, setAuth] = useState<Auth>({ kind: 'checking' });
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` is not read; changing it is how a retry asks for this effect again
  useEffect(() => {
    const code = loginCodeFromHash(window.location.hash);
    if (code) window.history.replaceState(null, '', `${window.location.pathname}#/live`);
    // A code that was exchanged is a session: no second round trip before the first screen (the live channel brings the status).
    const signIn = code ? api.createSession({ code }) : api.status();
    signIn.then(
      () => setAuth({ kind: 'signed-in' }),
      (error: Error) => {
        if (error instanceof ControlApiError && error.status === 401) setAuth({ kind: 'signed-out', problem: code ? error.message : null });
        else setAuth({ kind: 'unreachable', error });
      },
    );
  }, [api, attempt]);

  // Not reachable at start (the proxy is starting or restarting): ask again by itself.
  useEffect(() => {
    if (auth.kind !== 'unreachable') return undefined;
    const timer = setTimeout(() => setAttempt((count) => count + 1), START_RETRY_MS);
    return () => clearTimeout(timer);
  }, [auth]);

  const retry = () => setAttempt((count) => count + 1);
  const sessionEnded = () => setAuth({ kind: 'signed-out', problem: SESSION_ENDED });
  return [auth, retry, sessionEnded];
}

/** Counts the times the live channel came back after dropping (the first connection counts too, harmlessly). */
function useReconnects(connected: boolean): number {
  const [count, setCount] = useState(0);
  const lost = useRef(true);
  useEffect(() => {
    if (!connected) lost.current = true;
    else if (lost.current) {
      lost.current = false;
      setCount((previous) => previous + 1);
    }
  }, [connected]);
  return count;
}

export function App() {
  const api = useApi();
  const [auth, retry, sessionEnded] = useSignIn();
  const [store] = useState(() => new LiveStore());
  const screen = useHashRoute();
  const signedIn = auth.kind === 'signed-in';
  const live = useLiveChannel(api, store, signedIn, sessionEnded);
  const reconnects = useReconnects(live.connected);
  const [screenGeneration, setScreenGeneration] = useState(0);
  const { SpendScreen, ProfilesScreen } = useLazyScreens(screenGeneration);

  useEffect(() => {
    if (!signedIn) return undefined;
    // For the first-render figure (test/e2e/resilience.test.ts reads it).
    performance.mark('airlock:first-screen');
    const timer = setTimeout(() => {
      void loadSpend().catch(() => undefined);
      void loadProfiles().catch(() => undefined);
    }, 1_000);
    return () => clearTimeout(timer);
  }, [signedIn]);

  if (auth.kind === 'checking') return <Loading what="Airlock" />;
  if (auth.kind === 'signed-out') return <SignIn problem={auth.problem} onSignedIn={retry} />;
  if (auth.kind === 'unreachable')
    return (
      <div className="state state-error" role="alert">
        <p>{auth.error.message}</p>
        <p className="muted">Trying again every few seconds; start Airlock and this window signs in by itself.</p>
        <button type="button" onClick={retry}>
          Try again now
        </button>
      </div>
    );

  const proxyUrl = live.status?.proxyUrl ?? window.location.origin;
  // Undefined until the status is in; the screens that show the active profile's lists follow a switch (the tray's too).
  const activeProfileId = live.status ? (live.status.activeProfile?.id ?? null) : undefined;
  const togglePause = () => {
    if (live.status) api.setPaused(!live.status.paused).then(live.refreshStatus, live.refreshStatus);
  };
  const resumeClient = (clientName: string) => {
    api.resumeClient(clientName).then(live.refreshStatus, live.refreshStatus);
  };
  const dismissNotice = (noticeId: string) => {
    api.dismissNotice(noticeId).then(live.refreshStatus, live.refreshStatus);
  };
  const guarded = (what: string, content: ReactNode) => (
    <ScreenBoundary
      key={screen}
      what={what}
      resetKey={reconnects}
      probe={api.status}
      onReset={() => setScreenGeneration((count) => count + 1)}
    >
      <Suspense fallback={<Loading what="the screen" />}>{content}</Suspense>
    </ScreenBoundary>
  );

  return (
    <ReconnectContext.Provider value={reconnects}>
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
          {screen === 'live' &&
            guarded('The Live screen', <LiveScreen store={store} proxyUrl={proxyUrl} firstRun={live.status?.firstRun ?? null} />)}
          {screen === 'sessions' && guarded('The Sessions screen', <SessionsScreen />)}
          {screen === 'spend' && guarded('The Spend screen', <SpendScreen spentTodayCredits={live.status?.todaySpend.credits ?? null} />)}
          {screen === 'profiles' &&
            guarded(
              'The Profiles screen',
              <ProfilesScreen
                activeProfileId={activeProfileId}
                onChanged={live.refreshStatus}
                keychainProblem={live.status?.alarms.find((alarm) => alarm.kind === 'keychain_unavailable')?.message ?? null}
              />,
            )}
          {screen === 'models' && guarded('The Models screen', <ModelsScreen activeProfileId={activeProfileId} />)}
          {screen === 'connect' && guarded('The Connect screen', <ConnectScreen proxyUrl={proxyUrl} activeProfileId={activeProfileId} />)}
        </main>
        <StatusBar
          status={live.status}
          connected={live.connected}
          onTogglePause={togglePause}
          onResumeClient={resumeClient}
          onDismissNotice={dismissNotice}
        />
      </div>
    </ReconnectContext.Provider>
  );
}
