/**
 * Which of a conversation's turns the detail shows: the newest first, earlier ones as the user asks
 * for them. An agent's request holds its whole history, hundreds of turns in a long session, and
 * what the user looks for is nearly always at its end. Pure; ConversationView renders it.
 */

/** Turns shown when a conversation opens. */
export const NEWEST_TURNS_SHOWN = 20;
/** Turns added each time the user asks for earlier ones. */
export const EARLIER_TURNS_STEP = 50;

export interface ShownTurns {
  /** Index of the first turn shown. */
  firstShown: number;
  /** Turns before it, not shown. */
  collapsed: number;
  /** How many the next "show earlier" adds. */
  nextStep: number;
}

/**
 * How many of the newest turns to show so that `firstMatch` (a search match's turn) is among them:
 * the user found the request by that word, and a match in a collapsed turn showed nowhere.
 */
export function shownCountFor(turnCount: number, shownCount: number, firstMatch: number | null): number {
  return firstMatch === null ? shownCount : Math.max(shownCount, turnCount - firstMatch);
}

/** The newest `shownCount` of `turnCount` turns. */
export function shownTurns(turnCount: number, shownCount: number): ShownTurns {
  const firstShown = Math.max(0, turnCount - shownCount);
  return { firstShown, collapsed: firstShown, nextStep: Math.min(EARLIER_TURNS_STEP, firstShown) };
}

const turnsWord = (count: number): string => (count === 1 ? 'turn' : 'turns');

/** What the conversation says above its first turn shown when earlier ones are collapsed. */
export function collapsedNote(collapsed: number, turnCount: number): string {
  return `Showing the newest ${(turnCount - collapsed).toLocaleString()} of ${turnCount.toLocaleString()} turns; ${collapsed.toLocaleString()} earlier ${turnsWord(collapsed)} collapsed.`;
}

/** The button that shows more of them. */
export const showEarlierLabel = (step: number): string => `Show ${step.toLocaleString()} earlier ${turnsWord(step)}`;
