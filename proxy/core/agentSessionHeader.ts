/**
 * The agent's own name for its session, read from a request's headers: the log groups its rows by it
 * (store/write/agentSession.ts), and the window's live rows carry it.
 */

/** As long as a row's summary (store/write/exchangeSummary.ts): enough to tell sessions apart, cheap to keep. */
const AGENT_SESSION_ID_MAX_CHARS = 120;

/**
 * Headers agents name their session with: Claude Code sends x-claude-code-session-id; Codex sends
 * session-id and thread-id (codex-rs's model client), and its earlier releases session_id
 * (codex-api's requests/headers.rs); opencode sends x-session-affinity and X-Session-Id, both its
 * session's id, to any provider but its own, and a subagent's requests name the session that started
 * it in x-parent-session-id (packages/opencode/src/session/llm.ts, seen with 1.18.33). The parent's id
 * comes first, so a subagent's turns join the run's session, as a Claude Code subagent's do under their
 * parent's session id. The first one present wins.
 */
const SESSION_HEADER_NAMES = [
  'x-claude-code-session-id',
  'session-id',
  'thread-id',
  'session_id',
  'x-parent-session-id',
  'x-session-affinity',
  'x-session-id',
] as const;

export function agentSessionIdOf(headers: Record<string, string>): string | null {
  // Read for every logged row: one pass over the headers, no lower-cased copy of them all.
  let found: string | null = null;
  let foundRank: number = SESSION_HEADER_NAMES.length;
  for (const name in headers) {
    const rank = SESSION_HEADER_NAMES.indexOf(name.toLowerCase() as (typeof SESSION_HEADER_NAMES)[number]);
    if (rank < 0 || rank >= foundRank) continue;
    const value = headers[name]?.trim();
    if (!value) continue;
    found = value;
    foundRank = rank;
  }
  return found === null ? null : found.slice(0, AGENT_SESSION_ID_MAX_CHARS);
}
