import { describe, expect, it } from 'vitest';
import { agentSessionIdOf } from '../../../proxy/core/agentSessionHeader.ts';
import { pickAllowedHeaders } from '../../../proxy/core/headerAllowlist.ts';

describe("an agent's session id", () => {
  it.each<[string, Record<string, string>, string | null]>([
    ['Claude Code', { 'X-Claude-Code-Session-Id': 'cc-1', 'user-agent': 'claude-cli' }, 'cc-1'],
    ['Codex session-id', { 'session-id': 'cx-1', 'thread-id': 'th-1' }, 'cx-1'],
    ['Codex thread-id alone', { 'thread-id': 'th-1' }, 'th-1'],
    ['none', { 'user-agent': 'curl' }, null],
    ['mixed case, the earlier name wins whatever the order', { 'Thread-Id': 'th-1', 'Session-ID': 'cx-1' }, 'cx-1'],
    ['a blank header gives way to the next name', { 'session-id': '  ', 'thread-id': 'th-1' }, 'th-1'],
    // Earlier Codex releases name it with an underscore (openai/codex, codex-api requests/headers.rs: `session_id`).
    ['an earlier Codex session_id', { session_id: 'cx-old' }, 'cx-old'],
    ['the current names before the earlier one', { session_id: 'cx-old', 'session-id': 'cx-1' }, 'cx-1'],
    // opencode names its session in both headers to any provider but its own (opencode 1.18.33,
    // packages/opencode/src/session/llm.ts; the values are equal, as sent to Airlock).
    ['opencode', { 'x-session-affinity': 'ses_oc1', 'X-Session-Id': 'ses_oc1', 'user-agent': 'opencode/1.18.33' }, 'ses_oc1'],
    ['opencode, x-session-id alone', { 'x-session-id': 'ses_oc1' }, 'ses_oc1'],
    // An opencode subagent has a session of its own and names its parent's in x-parent-session-id: its
    // turns join the run's session, as a Claude Code subagent's do under their parent's session id.
    ['an opencode subagent', { 'x-session-affinity': 'ses_sub', 'x-session-id': 'ses_sub', 'x-parent-session-id': 'ses_oc1' }, 'ses_oc1'],
  ])('%s', (_name, headers, expected) => {
    expect(agentSessionIdOf(headers)).toBe(expected);
  });

  it.each<[string, Record<string, string>, string]>([
    ['Codex', { session_id: 'cx-old', authorization: 'Bearer x', 'user-agent': 'codex_exec/0.40.0' }, 'cx-old'],
    ['opencode', { 'x-session-affinity': 'ses_oc1', authorization: 'Bearer x', 'user-agent': 'opencode/1.18.33' }, 'ses_oc1'],
    ['opencode, x-session-id alone', { 'X-Session-Id': 'ses_oc1', authorization: 'Bearer x' }, 'ses_oc1'],
    ['an opencode subagent', { 'x-session-id': 'ses_sub', 'x-parent-session-id': 'ses_oc1', authorization: 'Bearer x' }, 'ses_oc1'],
  ])("%s's is kept by the header allowlist, which picks what the log is given", (_name, headers, expected) => {
    expect(agentSessionIdOf(pickAllowedHeaders(headers))).toBe(expected);
  });
});
