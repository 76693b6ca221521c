import { CLI_COMMAND } from '../../proxy/contracts/cli.ts';
import type { SwitchCheckResponse } from '../../proxy/contracts/profileViews.ts';
import { type SwitchWarning, traySwitchWarning } from './switchWarning.ts';

/** What a profile switch from the tray needs from the running app (main.ts gives the real ones). */
export interface TraySwitchDeps {
  /** The profile's name in the config as it is now; null when it no longer exists. */
  profileName(profileId: string): string | null;
  switchCheck(profileId: string): Promise<SwitchCheckResponse>;
  /** Asks the user; true to switch anyway. */
  confirm(warning: SwitchWarning): Promise<boolean>;
  activate(profileId: string): Promise<void>;
}

/** Anything but 'switched' leaves the radio mark the click moved on the wrong profile: the caller rebuilds the menu. */
export type TraySwitchOutcome = { kind: 'switched' } | { kind: 'cancelled' } | { kind: 'failed'; title: string; body: string };

const FAILED_TITLE = 'Profile not switched';

/**
 * A switch from the tray asks first, as the window does, when it would break running agents. A
 * failure is an outcome to tell, never a rejection: the tray's click handler has no one to catch
 * it, and the user would see the radio mark moved and nothing switched.
 */
export async function switchFromTray(profileId: string, deps: TraySwitchDeps): Promise<TraySwitchOutcome> {
  const name = deps.profileName(profileId);
  if (name === null) {
    // The menu was built before the CLI (or another window) removed the profile.
    return {
      kind: 'failed',
      title: FAILED_TITLE,
      body: `The profile "${profileId}" no longer exists (it was removed outside this window, e.g. with \`${CLI_COMMAND} profile\`). The menu now lists the profiles as they are.`,
    };
  }
  try {
    const warning = traySwitchWarning(await deps.switchCheck(profileId), name);
    if (warning && !(await deps.confirm(warning))) return { kind: 'cancelled' };
    await deps.activate(profileId);
    return { kind: 'switched' };
  } catch (error) {
    return {
      kind: 'failed',
      title: FAILED_TITLE,
      body: `Switching to ${name} failed: ${error instanceof Error ? error.message : 'unknown error'}`,
    };
  }
}
