import type { SwitchCheckResponse } from '../../proxy/contracts/profileViews.ts';

/** What the tray's confirmation dialog says before a switch that would break running agents. */
export interface SwitchWarning {
  message: string;
  detail: string;
  /** The first button switches; the second (the default, and Escape) keeps the current profile. */
  buttons: [string, string];
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The same check as the window's (GET /profiles/:id/switch-check) worded for a native dialog:
 * null when switching now breaks nothing the user should hear about first.
 */
export function traySwitchWarning(check: SwitchCheckResponse, profileName: string): SwitchWarning | null {
  const lines: string[] = [];
  if (check.inFlight > 0)
    lines.push(
      `${plural(check.inFlight, 'request')} in flight: they finish on the current profile, but the agents' next requests go to ${profileName}.`,
    );
  if (check.missingModels.length > 0) {
    const models = check.missingModels
      .map((entry) => (entry.upstream === entry.requested ? entry.requested : `${entry.requested} (sent as ${entry.upstream})`))
      .join(', ');
    lines.push(
      `${profileName}'s gateway does not list ${plural(check.missingModels.length, 'model')} your clients used today; their next requests would fail with model_not_found: ${models}. Add an alias or route for them in Airlock's Profiles first, or switch anyway.`,
    );
  }
  if (!check.modelListKnown && check.recentModels.length > 0)
    lines.push(
      `${profileName}'s model list could not be fetched, so Airlock cannot tell whether it serves the models your clients used today (${check.recentModels.join(', ')}). Run Test on the profile in Airlock to see why.`,
    );
  if (lines.length === 0) return null;
  return { message: `Switch to ${profileName} now?`, detail: lines.join('\n\n'), buttons: ['Switch anyway', 'Cancel'] };
}
