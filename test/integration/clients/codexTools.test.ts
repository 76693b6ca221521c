import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/proxyHarness.ts';
import { installedVersion } from '../../support/clients/clientBinaries.ts';
import { createClientSandbox, type ClientSandbox } from '../../support/clients/clientSandbox.ts';
import { receivedChatRequests, toolResultFor } from '../../support/clients/receivedChat.ts';
import { runCodexExec, type AgentRun } from '../../support/clients/agentRuns.ts';
import { MCP_STAND_IN_MARKER, MCP_STAND_IN_SERVER } from '../../support/clients/mcpStandIn.ts';
import { transcript, type CliResult } from '../../support/clients/runCli.ts';

/**
 * The tools Codex offers the newest models, through Airlock's translation to a chat gateway. Which
 * tools a model gets comes from Codex's bundled model catalog: gpt-5.5 gets `apply_patch` as a
 * custom (freeform) tool (apply_patch_tool_type "freeform"); gpt-5.6-sol gets all its tools in an
 * `additional_tools` input item instead of `tools`, among them `exec`, a custom tool running JavaScript.
 */
const TEST_TIMEOUT_MS = 60_000;
const GATEWAY_MODEL = 'gpt-4o-mini';

let harness: Harness;
let sandbox: ClientSandbox;

beforeAll(async () => {
  harness = await startHarness({ profile: { modelRoutes: [{ pattern: 'gpt-*', target: GATEWAY_MODEL }] } });
  harness.simulator.useDialect('seed');
});
afterAll(async () => {
  await harness.close();
});
beforeEach(async () => {
  harness.simulator.reset();
  sandbox = await createClientSandbox('codex');
});
afterEach(async () => {
  await sandbox.remove();
});

function runCodex(model: string, prompt: string, options: Pick<AgentRun, 'writable' | 'codexProvider'> = {}): Promise<CliResult> {
  return runCodexExec({ sandbox, proxyUrl: harness.proxy.url, token: 'alk_codex_client', model, prompt, ...options });
}

describe(`Codex CLI ${installedVersion('@openai/codex')} editing files through Airlock's translation`, () => {
  it(
    "offers apply_patch to the chat model, and the model's call of it edits the file",
    async () => {
      const patch = '*** Begin Patch\n*** Add File: hello.txt\n+airlock-patched\n*** End Patch\n';
      harness.simulator.script(
        { kind: 'reply', toolCalls: [{ name: 'apply_patch', arguments: JSON.stringify({ input: patch }) }] },
        { kind: 'reply', content: 'final-answer-after-patch' },
      );

      const result = await runCodex('gpt-5.5', 'Create hello.txt', { writable: true });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('final-answer-after-patch');
      expect(await readFile(join(sandbox.workDir, 'hello.txt'), 'utf8')).toBe('airlock-patched\n');
      const [toolTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
      expect(extra).toEqual([]);
      expect(toolTurn?.toolNames).toContain('apply_patch');
      // The patch went back to the model as the call it made, and Codex's answer to it as the tool's result.
      const call = resultTurn?.messages.flatMap((message) => message.tool_calls ?? []).find((c) => c.function.name === 'apply_patch');
      expect(JSON.parse(call?.function.arguments ?? '{}')).toEqual({ input: patch });
      expect(toolResultFor(resultTurn!, 'apply_patch')?.content).toContain('hello.txt');
    },
    TEST_TIMEOUT_MS,
  );
});

describe(`Codex CLI ${installedVersion('@openai/codex')} with its tools in an additional_tools item, through Airlock's translation`, () => {
  it(
    "offers them to the chat model, and the model's calls reach them: Codex's JavaScript tool and a sub-agent tool",
    async () => {
      const listAgents = 'collaboration__list_agents';
      harness.simulator.script(
        {
          kind: 'reply',
          toolCalls: [
            { name: 'exec', arguments: JSON.stringify({ input: "text('airlock-exec-' + 6 * 7)" }) },
            { name: listAgents, arguments: '{}' },
          ],
        },
        { kind: 'reply', content: 'final-answer-after-exec' },
      );

      const result = await runCodex('gpt-5.6-sol', 'Run the script');

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('final-answer-after-exec');
      const [toolTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
      expect(extra).toEqual([]);
      expect(toolTurn?.toolNames).toEqual(expect.arrayContaining(['exec', 'wait', listAgents]));
      // Only Codex's JavaScript runtime makes the marker out of the script.
      expect(toolResultFor(resultTurn!, 'exec')?.content).toContain('airlock-exec-42');
      // Codex answers a call it cannot route with "unsupported call: <name>" as the tool's output.
      const listed = toolResultFor(resultTurn!, listAgents)?.content;
      expect(listed).toBeDefined();
      expect(listed).not.toContain('unsupported call');
    },
    TEST_TIMEOUT_MS,
  );
});

describe(`Codex CLI ${installedVersion('@openai/codex')} finding an MCP tool with tool_search, through Airlock's translation`, () => {
  it(
    "offers tool_search to the chat model, Codex runs the model's search, and the model calls the MCP tool it found",
    async () => {
      // Codex keeps MCP tools out of gpt-5.5's tools until a search finds them (CommandCodeAI/command-code#893).
      const forecast = 'mcp__weather__forecast';
      harness.simulator.script(
        { kind: 'reply', toolCalls: [{ name: 'tool_search', arguments: JSON.stringify({ query: 'weather forecast' }) }] },
        { kind: 'reply', toolCalls: [{ name: forecast, arguments: JSON.stringify({ city: 'Paris' }) }] },
        { kind: 'reply', content: 'final-answer-after-forecast' },
      );
      const mcpServer = [process.execPath, fileURLToPath(new URL('../../support/clients/mcpStandIn.ts', import.meta.url))];

      const result = await runCodex('gpt-5.5', 'Weather in Paris?', {
        codexProvider: { mcpServers: { [MCP_STAND_IN_SERVER]: mcpServer } },
      });

      expect(result.exitCode, transcript(result)).toBe(0);
      expect(result.stdout.trim()).toBe('final-answer-after-forecast');
      const [searchTurn, foundTurn, resultTurn, ...extra] = receivedChatRequests(harness.simulator);
      expect(extra).toEqual([]);
      expect(searchTurn?.toolNames).toContain('tool_search');
      expect(searchTurn?.toolNames).not.toContain(forecast);
      // Codex's search found the tool: the model is told so, and offered it.
      expect(toolResultFor(foundTurn!, 'tool_search')?.content).toContain(forecast);
      expect(foundTurn?.toolNames).toContain(forecast);
      // Only the MCP server writes the marker: Codex routed the call to it.
      expect(toolResultFor(resultTurn!, forecast)?.content).toContain(`${MCP_STAND_IN_MARKER}: sunny in Paris`);
    },
    TEST_TIMEOUT_MS,
  );
});
