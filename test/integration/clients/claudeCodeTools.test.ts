import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { receivedChatRequests, toolResultFor } from '../../support/clients/receivedChat.ts';
import { runClaudeCodePrint, type AgentRun } from '../../support/clients/agentRuns.ts';
import { MCP_STAND_IN_MARKER, MCP_STAND_IN_SERVER, MCP_STAND_IN_TOOL } from '../../support/clients/mcpStandIn.ts';
import { transcript, type CliResult } from '../../support/clients/runCli.ts';

/** The tools Claude Code offers a model beside its plain built-ins, through Airlock's translation to a chat gateway. */
const TEST_TIMEOUT_MS = 60_000;
const CLIENT_MODEL = 'claude-sonnet-4-5';
const GATEWAY_MODEL = 'deepseek-chat';
const CLAUDE_CODE = `Claude Code ${installedVersion('@anthropic-ai/claude-code')}`;

let harness: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'claude-*', target: GATEWAY_MODEL }] } });
  harness.simulator.useDialect('seed');
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  sandbox = await createClientSandbox('claude-code');
});
afterEach(async () => {
  await sandbox.remove();
});

function runClaude(prompt: string, options: Pick<AgentRun, 'extraArgs' | 'claudeCodeEnv'>): Promise<CliResult> {
  return runClaudeCodePrint({
    sandbox,
    proxyUrl: harness.proxy.url,
    token: 'alk_claude_code_client',
    model: CLIENT_MODEL,
    prompt,
    ...options,
  });
}

describe(`${CLAUDE_CODE} finding an MCP tool with ToolSearch, through Airlock's translation`, () => {
  it(
    "tells the chat model which tool its search found, and the model's call of it reaches the MCP server",
    async () => {
      // Behind a base URL that is not Anthropic's, Claude Code defers tools only when told to; its own
      // debug log names ENABLE_TOOL_SEARCH=true for "a proxy that forwards tool_reference blocks".
      const forecast = `mcp__${MCP_STAND_IN_SERVER}__${MCP_STAND_IN_TOOL}`;
      const mcpConfig = join(sandbox.homeDir, 'mcp.json');
      const standIn = fileURLToPath(new URL('../../support/clients/mcpStandIn.ts', import.meta.url));
      await writeFile(mcpConfig, JSON.stringify({ mcpServers: { [MCP_STAND_IN_SERVER]: { command: process.execPath, args: [standIn] } } }));
      harness.simulator.script(
        { kind: 'reply', toolCalls: [{ name: 'ToolSearch', arguments: JSON.stringify({ query: `select:${forecast}`, max_results: 5 }) }] },
        { kind: 'reply', toolCalls: [{ name: forecast, arguments: JSON.stringify({ city: 'Oslo' }) }] },
        { kind: 'reply', content: 'final-answer-after-forecast' },
      );

      const result = await runClaude('Weather in Oslo?', {
        extraArgs: ['--mcp-config', mcpConfig, '--allowedTools', forecast],
        claudeCodeEnv: { ENABLE_TOOL_SEARCH: 'true' },
      });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('final-answer-after-forecast');
      const [searchTurn, foundTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
      expect(extra).toEqual([]);
      expect(searchTurn?.toolNames).toContain('ToolSearch');
      expect(searchTurn?.toolNames).not.toContain(forecast);
      // Claude Code's search answered with a tool_reference: the model is told what it found, and offered it.
      expect(toolResultFor(foundTurn!, 'ToolSearch')?.content).toContain(forecast);
      expect(foundTurn?.toolNames).toContain(forecast);
      // Only the MCP server writes the marker: Claude Code ran the call there.
      expect(toolResultFor(resultTurn!, forecast)?.content).toContain(`${MCP_STAND_IN_MARKER}: sunny in Oslo`);
    },
    TEST_TIMEOUT_MS,
  );
});

describe(`${CLAUDE_CODE} searching the web through Airlock's translation`, () => {
  it(
    'learns in the WebSearch tool result that web search runs only at Anthropic, and the session goes on',
    async () => {
      harness.simulator.script(
        { kind: 'reply', toolCalls: [{ name: 'WebSearch', arguments: JSON.stringify({ query: 'airlock gateway' }) }] },
        { kind: 'reply', content: 'final-answer-without-search' },
      );

      const result = await runClaude('Search the web for airlock', { extraArgs: ['--allowedTools', 'WebSearch'] });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('final-answer-without-search');
      // WebSearch's own request (only the web_search server tool, forced) never reached the chat model.
      const [searchTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
      expect(extra).toEqual([]);
      expect(searchTurn?.toolNames).toContain('WebSearch');
      const searchResult = toolResultFor(resultTurn!, 'WebSearch')?.content;
      expect(searchResult).toMatch(/web_search_20250305.*runs only at Anthropic.*Nothing was sent to the gateway\./);
      // Retrying cannot help, so the refusal does not ask for one.
      expect(searchResult).not.toMatch(/retry/i);
    },
    TEST_TIMEOUT_MS,
  );
});
