import { Component, createContext, type ReactNode } from 'react';

/** Counts the times the window got the proxy back after losing it; screens reload what failed meanwhile. */
export const ReconnectContext = createContext(0);

interface ScreenBoundaryProps {
  /** What is shown inside, for the message: "the Spend screen". */
  what: string;
  /** A new value (the proxy came back) clears a caught error and renders the children again. */
  resetKey: unknown;
  /** Runs before that second try, e.g. to make a screen whose code failed to load fetch it again. */
  onReset: () => void;
  /** Asks whether the proxy answers again; while the screen shows its failure, it is asked every few seconds. */
  probe: () => Promise<unknown>;
  children: ReactNode;
}

/** How often a failed screen asks whether the proxy is back. */
const PROBE_INTERVAL_MS = 2_000;

/** A screen's code is a separate file; when the proxy is down it cannot be fetched and import() says so. */
function isChunkLoadFailure(error: Error): boolean {
  return /dynamically imported module|module script failed|Importing a module script/i.test(error.message);
}

/**
 * Keeps one screen's failure inside that screen: the navigation, status bar and other screens go on
 * working, and the screen tries again by itself when the proxy is back (or when asked).
 */
export class ScreenBoundary extends Component<ScreenBoundaryProps, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  #probeTimer: ReturnType<typeof setTimeout> | undefined;

  override componentDidCatch(): void {
    this.#scheduleProbe();
  }

  override componentDidUpdate(previous: ScreenBoundaryProps): void {
    if (this.state.error && previous.resetKey !== this.props.resetKey) this.retry();
  }

  override componentWillUnmount(): void {
    clearTimeout(this.#probeTimer);
  }

  #scheduleProbe(): void {
    clearTimeout(this.#probeTimer);
    this.#probeTimer = setTimeout(() => {
      this.props.probe().then(
        () => {
          if (this.state.error) this.retry();
        },
        () => {
          if (this.state.error) this.#scheduleProbe();
        },
      );
    }, PROBE_INTERVAL_MS);
  }

  retry = (): void => {
    clearTimeout(this.#probeTimer);
    this.props.onReset();
    this.setState({ error: null });
  };

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    const cause = isChunkLoadFailure(error)
      ? `${this.props.what} could not be loaded: Airlock is not reachable.`
      : `${this.props.what} failed: ${error.message}`;
    return (
      <div className="state state-error" role="alert">
        <p>{cause}</p>
        <p className="muted">It is tried again by itself when Airlock answers again, or now:</p>
        <button type="button" onClick={this.retry}>
          Try again
        </button>
      </div>
    );
  }
}
