import type { AgentSessionSummary, ConversationItem, SessionTurn } from '../../contracts/agentSessions.ts';
import { formatCredits } from '../../contracts/amounts.ts';

/** Sessions and timelines as plain text for `airlock sessions`. Pure: times in UTC, so output does not depend on the machine. */

/** How much of an item's first line a text line shows; the window and the request detail show all of it. */
const LINE_CHARS = 160;

export function durationText(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 60) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

const utc = (epochMs: number): string => new Date(epochMs).toISOString().replace('T', ' ').slice(0, 19);

function costText(session: Pick<AgentSessionSummary, 'costCredits' | 'unpricedTurns'>): string {
  return `${formatCredits(session.costCredits)} credits${session.unpricedTurns > 0 ? ` (+${session.unpricedTurns} unpriced)` : ''}`;
}

/** One line per session, newest activity first. */
export function sessionListText(sessions: readonly AgentSessionSummary[]): string[] {
  if (sessions.length === 0)
    return ['No agent sessions in the log yet: requests join one when their agent names it or their conversation is recognised.'];
  return sessions.map(
    (session) =>
      `${session.id}  ${utc(session.startedAtMs)} UTC  ${session.clientName ?? 'no client'}  ${session.turns} turn${session.turns === 1 ? '' : 's'}  ${durationText(session.durationMs)}  ${costText(session)}  ${session.errors} error${session.errors === 1 ? '' : 's'}\n    ${session.firstPrompt ?? '(no prompt text)'}`,
  );
}

/** An item's first line, cut, with how many more lines it has. */
function firstLineOf(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const first = (lines[0] ?? '').trim();
  const cut = first.length > LINE_CHARS ? `${first.slice(0, LINE_CHARS - 1)}…` : first;
  return lines.length > 1 ? `${cut} (+${lines.length - 1} lines)` : cut;
}

function itemText(item: ConversationItem): string {
  switch (item.kind) {
    case 'image':
      return 'image';
    case 'tool_call':
      return `tool call ${item.name}${item.callId ? ` [${item.callId}]` : ''}: ${firstLineOf(item.text)}`;
    case 'tool_result':
      return `tool result${item.callId ? ` [${item.callId}]` : ''}${item.isError ? ' (error)' : ''}: ${firstLineOf(item.text)}`;
    default:
      return `${item.kind}: ${firstLineOf(item.text)}`;
  }
}

function changeText(turn: SessionTurn): string[] {
  const change = turn.change;
  switch (change.kind) {
    case 'first':
      return [`  sent ${change.added.length} item${change.added.length === 1 ? '' : 's'}`];
    case 'unknown':
      return [`  change unknown: ${change.reason ?? 'no readable body'}`];
    default: {
      const since = `since turn ${change.sinceTurn}`;
      const head =
        change.kind === 'rewritten'
          ? `  history rewritten ${since}: kept ${change.keptItems}, dropped ${change.droppedItems}`
          : `  ${since}: kept ${change.keptItems} items`;
      return [`${head}${change.echoedAnswerItems > 0 ? `, ${change.echoedAnswerItems} echo the previous answer` : ''}`];
    }
  }
}

/** A session's heading and each turn: what the client added (+), what the model answered (=), errors (!). */
export function timelineText(session: AgentSessionSummary, turns: readonly SessionTurn[]): string[] {
  const lines = [
    `Session ${session.id} (${session.source === 'agent' ? "the agent's own id" : 'recognised by its opening messages'})`,
    `  ${session.clientName ?? 'no client'}, started ${utc(session.startedAtMs)} UTC, ${durationText(session.durationMs)}, ${session.turns} turns, ${costText(session)}, ${session.errors} errors`,
  ];
  for (const turn of turns) {
    const request = turn.request;
    const tokens = request.inputTokens === null ? '' : `  ${request.inputTokens} in / ${request.outputTokens ?? 0} out`;
    lines.push(
      '',
      `#${turn.index}  ${utc(request.startedAtMs)}  ${request.clientPath}  ${request.requestedModel ?? '—'}  ${request.status ?? '—'}${request.errorClass ? ` ${request.errorClass}` : ''}  ${durationText(request.durationMs)}  ${request.costCredits === null ? 'unpriced' : `${formatCredits(request.costCredits)} credits`}${tokens}  ${request.id}`,
    );
    lines.push(...changeText(turn));
    for (const item of turn.change.added) lines.push(`  + ${itemText(item)}`);
    for (const item of turn.answer ?? []) lines.push(`  = ${itemText(item)}`);
    if (turn.errorMessage) lines.push(`  ! ${firstLineOf(turn.errorMessage)}`);
  }
  return lines;
}
