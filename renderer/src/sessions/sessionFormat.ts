import type { AgentSessionSummary, TurnChange } from '../../../proxy/contracts/agentSessions.ts';
import { formatCredits } from '../common/format.ts';

/** A session's cost in words: credits, and how many turns had no price (the sum is then a floor). */
export function sessionCost(session: Pick<AgentSessionSummary, 'costCredits' | 'unpricedTurns'>): string {
  const credits = formatCredits(session.costCredits);
  return session.unpricedTurns > 0 ? `${credits} (+${session.unpricedTurns} unpriced)` : credits;
}

/** Where a session's id came from, for a person. */
export function sessionSource(session: Pick<AgentSessionSummary, 'source'>): string {
  return session.source === 'agent' ? "the agent's session id" : 'recognised by its opening messages';
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** One line on what the client sent against the turn compared with. */
export function changeSummary(change: TurnChange): string {
  switch (change.kind) {
    case 'first':
      return 'First turn: the whole conversation so far.';
    case 'unknown':
      return `Change unknown: ${change.reason ?? 'no readable request body'}.`;
    case 'appended':
      return `Since turn ${change.sinceTurn}: ${plural(change.keptItems, 'item')} kept${change.echoedAnswerItems > 0 ? `, ${plural(change.echoedAnswerItems, 'item')} of the previous answer sent back` : ''}, ${plural(change.added.length, 'new item')}.`;
    case 'rewritten':
      return `History rewritten since turn ${change.sinceTurn}: ${plural(change.keptItems, 'item')} kept, ${plural(change.droppedItems, 'item')} dropped, ${plural(change.added.length, 'new item')}.`;
  }
}
