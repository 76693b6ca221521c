import type { FirstRunSteps } from '../../../proxy/contracts/status.ts';

const STEPS: { key: keyof FirstRunSteps; title: string; how: string; href: string }[] = [
  { key: 'hasProfile', title: 'Add a profile', how: "Your gateway's base URL (it ends in /v1).", href: '#/profiles' },
  { key: 'hasKey', title: 'Set its key', how: 'Stored in the OS keychain; Airlock never shows it again.', href: '#/profiles' },
  {
    key: 'hasClientToken',
    title: 'Connect a client',
    how: 'Copy the setup for your tool; it gets its own local token.',
    href: '#/connect',
  },
];

/** The empty Live screen: the three steps to a first request, or what to do next when they are done. */
export function FirstRun({ steps }: { steps: FirstRunSteps | null }) {
  const allDone = steps !== null && STEPS.every((step) => steps[step.key]);
  if (allDone) {
    return (
      <div className="state state-empty">
        <p className="state-title">No requests yet.</p>
        <p>
          Send one from a connected client and it appears here as it streams. Setup for each tool is on the <a href="#/connect">Connect</a>{' '}
          page.
        </p>
      </div>
    );
  }
  return (
    <section className="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">Three steps to your first request</h2>
      <ol>
        {STEPS.map((step) => {
          const done = steps?.[step.key] ?? false;
          return (
            <li key={step.key} className={done ? 'done' : undefined}>
              <a href={step.href}>{step.title}</a> {done ? <span className="ok">done</span> : null}
              <p className="muted">{step.how}</p>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
