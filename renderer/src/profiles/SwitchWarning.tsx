import { useEffect, useRef } from 'react';
import type { SwitchCheckResponse } from '../../../proxy/contracts/profileViews.ts';

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** True when switching now would break something the user should hear about first. */
export function switchNeedsConfirmation(check: SwitchCheckResponse): boolean {
  return check.inFlight > 0 || check.missingModels.length > 0 || (!check.modelListKnown && check.recentModels.length > 0);
}

/** Asked before a switch that would break running agents: what breaks, and the choice. */
export function SwitchWarning({
  check,
  profileName,
  onConfirm,
  onCancel,
}: {
  check: SwitchCheckResponse;
  profileName: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  // An alert dialog takes focus, on its least destructive choice, so a keyboard or screen reader user meets it at once.
  const cancelButton = useRef<HTMLButtonElement>(null);
  useEffect(() => cancelButton.current?.focus(), []);
  return (
    <section
      className="switch-warning"
      role="alertdialog"
      aria-labelledby="switch-warning-title"
      aria-describedby="switch-warning-list"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <h3 id="switch-warning-title">Switch to {profileName} now?</h3>
      <ul id="switch-warning-list">
        {check.inFlight > 0 && (
          <li>
            {plural(check.inFlight, 'request')} in flight: they finish on the current profile, but the agents' next requests go to{' '}
            {profileName}.
          </li>
        )}
        {check.missingModels.length > 0 && (
          <li>
            {profileName}'s gateway does not list {plural(check.missingModels.length, 'model')} your clients used today; their next requests
            would fail with model_not_found:{' '}
            {check.missingModels.map((entry, index) => (
              <span key={entry.requested}>
                {index > 0 && ', '}
                <code>{entry.requested}</code>
                {entry.upstream !== entry.requested && (
                  <>
                    {' '}
                    (sent as <code>{entry.upstream}</code>)
                  </>
                )}
              </span>
            ))}
            . Add an alias or route for them in its settings below first, or switch anyway.
          </li>
        )}
        {!check.modelListKnown && check.recentModels.length > 0 && (
          <li>
            {profileName}'s model list could not be fetched, so Airlock cannot tell whether it serves the models your clients used today (
            {check.recentModels.join(', ')}). Run Test below to see why.
          </li>
        )}
      </ul>
      <button type="button" className="danger" onClick={onConfirm}>
        Switch anyway
      </button>{' '}
      <button type="button" ref={cancelButton} onClick={onCancel}>
        Cancel
      </button>
    </section>
  );
}
