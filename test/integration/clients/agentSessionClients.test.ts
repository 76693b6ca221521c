import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSessionPage, AgentSessionTimeline, SessionTurn } from '../../../proxy/contracts/agentSessions.ts';
import type { TokenSecretResponse } from '../../../proxy/contracts/clientTokens.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { runClaudeCodePrint, runCodexExec } from '../../support/clients/agentRuns.ts';
import { transcript } from '../../support/clients/runCli.ts';
import { runAirlock } from '../../support/cliHarness.ts';
import { startControlHarness, type ControlHarness } from '../../support/controlHarness.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';

/**
 * Issue 22: the real Claude Code and Codex CLIs name their sessions; a run that calls a tool is
 * one session in Airlock whose timeline shows the tool call and the result the CLI sent back.
 */
const TEST_TIMEOUT_MS = 60_000;

let harness: ControlHarness;
let sandbox: ClientSandbox;
const tokens: Record<string, string> = {};

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await harness.api(path, init);
  expect(response.ok, `${path}: ${await response.clone().text()}`).toBe(true);
  return (await response.json()) as T;
}

beforeAll(async () => {
  harness = await startControlHarness();
  await api('/profiles', {
    method: 'POST',
    body: JSON.stringify({
      id: 'main',
      name: 'Main',
      baseUrl: harness.simulator.url,
      modelRoutes: [
        { pattern: 'claude-*', target: 'deepseek-chat' },
        { pattern: 'gpt-5*', target: 'gpt-4o-mini' },
      ],
    }),
  });
  await api('/profiles/main/key', { method: 'PUT', body: JSON.stringify({ key: SENTINEL_KEY }) });
  await api('/profiles/main/activate', { method: 'POST', body: '{}' });
  for (const name of ['claude-code', 'codex'])
    tokens[name] = (await api<TokenSecretResponse>('/tokens', { method: 'POST', body: JSON.stringify({ name }) })).token;
});
afterAll(async () => {
  await harness?.close();
});
beforeEach(async (context) => {
  harness.simulator.reset();
  sandbox = await createClientSandbox(context.task.name.startsWith('Claude') ? 'claude-code' : 'codex');
});
afterEach(async () => {
  await sandbox.remove();
});

/** The one session the client's requests formed, and its whole timeline. */
async function onlySessionOf(clientName: string): Promise<AgentSessionTimeline> {
  await harness.log.flush();
  const page = await api<AgentSessionPage>('/agent-sessions');
  const sessions = page.items.filter((session) => session.clientName === clientName);
  expect(sessions).toHaveLength(1);
  return api<AgentSessionTimeline>(`/agent-sessions/${encodeURIComponent(sessions[0]?.id ?? '')}`);
}

const toolResultTurn = (turns: SessionTurn[], marker: string) =>
  turns.find((turn) => turn.change.added.some((item) => item.kind === 'tool_result' && item.text.includes(marker)));

describe('sessions of the real agent CLIs', () => {
  it(
    'Claude Code: a tool-calling run is one session under its own id, the Bash call and its output in the timeline',
    async () => {
      harness.simulator.script(
        {
          kind: 'reply',
          toolCalls: [
            { name: 'Bash', arguments: JSON.stringify({ command: "printf '%s-%s' airlock tool-ok", description: 'Print the marker' }) },
          ],
        },
        { kind: 'reply', content: 'final-answer-after-tool' },
      );
      const result = await runClaudeCodePrint({
        sandbox,
        proxyUrl: harness.proxy.url,
        token: tokens['claude-code'] ?? '',
        model: 'claude-sonnet-4-5',
        prompt: 'Print the marker with Bash',
        extraArgs: ['--allowedTools', 'Bash(printf:*)'],
      });
      expect(result.exitCode, transcript(result)).toBe(0);

      const timeline = await onlySessionOf('claude-code');
      expect(timeline.session.source).toBe('agent');
      expect(timeline.session.turns).toBeGreaterThanOrEqual(2);
      const call = timeline.turns.find((turn) => turn.answer?.some((item) => item.kind === 'tool_call' && item.name === 'Bash'));
      expect(call, JSON.stringify(timeline.turns.map((turn) => turn.answer))).toBeDefined();
      const sentBack = toolResultTurn(timeline.turns, 'airlock-tool-ok');
      expect(sentBack?.change.kind).toBe('appended');
      expect(sentBack?.index).toBeGreaterThan(call?.index ?? Number.POSITIVE_INFINITY);
      expect(sentBack?.answer).toEqual([{ kind: 'assistant', text: 'final-answer-after-tool' }]);

      const cli = await runAirlock(harness.dataDir, harness.secrets, ['sessions', timeline.session.id]);
      expect(cli.exitCode, cli.stderr).toBe(0);
      expect(cli.stdout).toMatch(/\+ tool result \[[^\]]+\]: airlock-tool-ok/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Codex: a tool-calling run is one session under its own id, the shell call and its output in the timeline',
    async () => {
      harness.simulator.script(
        {
          kind: 'reply',
          toolCalls: [{ name: 'exec_command', arguments: JSON.stringify({ cmd: "printf '%s-%s' airlock tool-ok", login: false }) }],
        },
        { kind: 'reply', content: 'final-answer-after-tool' },
      );
      const result = await runCodexExec({
        sandbox,
        proxyUrl: harness.proxy.url,
        token: tokens.codex ?? '',
        model: 'gpt-5-codex',
        prompt: 'Print the marker with a shell command',
      });
      expect(result.exitCode, transcript(result)).toBe(0);

      const timeline = await onlySessionOf('codex');
      expect(timeline.session.source).toBe('agent');
      expect(timeline.turns.map((turn) => turn.request.clientPath)).toEqual(['/v1/responses', '/v1/responses']);
      expect(timeline.turns[0]?.answer).toContainEqual(expect.objectContaining({ kind: 'tool_call', name: 'exec_command' }));
      const sentBack = toolResultTurn(timeline.turns, 'airlock-tool-ok');
      expect(sentBack).toMatchObject({ index: 2, change: { kind: 'appended', sinceTurn: 1 } });
      expect(sentBack?.answer).toContainEqual(expect.objectContaining({ kind: 'assistant', text: 'final-answer-after-tool' }));
    },
    TEST_TIMEOUT_MS,
  );
});
