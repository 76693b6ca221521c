import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeCodeCli, codexCli, continueCli } from './clientBinaries.ts';
import { offlineClientEnv, type ClientSandbox } from './clientSandbox.ts';
import { codexConfigToml, type CodexProviderSettings } from './codexConfig.ts';
import { runCli, type CliResult } from './runCli.ts';

const CLI_TIMEOUT_MS = 45_000;
const CODEX_TOKEN_VARIABLE = 'AIRLOCK_CLIENT_TOKEN';

type CodexSandboxMode = 'read-only' | 'workspace-write';

/** `codex exec` run once and offline: its config as given only, no git checks, no history, plain text, in the sandbox given. */
function codexExecFlags(sandboxMode: CodexSandboxMode): string[] {
  return ['exec', '--strict-config', '--skip-git-repo-check', '--ephemeral', '--color', 'never', '--sandbox', sandboxMode];
}

/** `codex exec` once and offline, its shell commands read-only. */
export const CODEX_EXEC_FLAGS: readonly string[] = codexExecFlags('read-only');

/** One agent run: which Airlock (or tap in front of it) it talks to, with which client token and model. */
export interface AgentRun {
  sandbox: ClientSandbox;
  proxyUrl: string;
  token: string;
  model: string;
  prompt: string;
  /** More of the CLI's own flags, such as the tools Claude Code may run unasked. */
  extraArgs?: readonly string[];
  /** When this settles the CLI gets a Ctrl-C (runCli's interruptWhen). */
  interruptWhen?: Promise<unknown>;
  /** Codex's settings a test is about (its retries, the WebSocket transport, when it compacts, its MCP servers). */
  codexProvider?: Pick<CodexProviderSettings, 'maxRetries' | 'supportsWebsockets' | 'autoCompactTokenLimit' | 'mcpServers'>;
  /** Codex may edit files in the sandbox's work dir (a test about edits); read-only otherwise. */
  writable?: boolean;
  /** Claude Code's settings a test is about, as its environment variables (ENABLE_TOOL_SEARCH). */
  claudeCodeEnv?: Record<string, string>;
}

/** `claude -p` offline with a fresh config dir, its only endpoint `proxyUrl`, the token as its API key. */
export function runClaudeCodePrint(run: AgentRun): Promise<CliResult> {
  return runCli({
    cli: claudeCodeCli(),
    args: ['-p', run.prompt, '--model', run.model, '--no-session-persistence', ...(run.extraArgs ?? [])],
    cwd: run.sandbox.workDir,
    env: offlineClientEnv(run.sandbox.homeDir, {
      CLAUDE_CONFIG_DIR: join(run.sandbox.homeDir, '.claude'),
      ANTHROPIC_BASE_URL: run.proxyUrl,
      ANTHROPIC_API_KEY: run.token,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      ...run.claudeCodeEnv,
    }),
    timeoutMs: CLI_TIMEOUT_MS,
    ...(run.interruptWhen ? { interruptWhen: run.interruptWhen } : {}),
  });
}

/** `codex exec` with a fresh CODEX_HOME whose only provider is `proxyUrl` (Responses), its own retries off. */
export async function runCodexExec(run: AgentRun): Promise<CliResult> {
  const codexHome = join(run.sandbox.homeDir, '.codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(
    join(codexHome, 'config.toml'),
    codexConfigToml({ ...run.codexProvider, proxyUrl: run.proxyUrl, model: run.model, tokenEnvVariable: CODEX_TOKEN_VARIABLE }),
  );
  return runCli({
    cli: codexCli(),
    args: [...codexExecFlags(run.writable ? 'workspace-write' : 'read-only'), ...(run.extraArgs ?? []), run.prompt],
    cwd: run.sandbox.workDir,
    env: offlineClientEnv(run.sandbox.homeDir, { CODEX_HOME: codexHome, [CODEX_TOKEN_VARIABLE]: run.token }),
    timeoutMs: CLI_TIMEOUT_MS,
    ...(run.interruptWhen ? { interruptWhen: run.interruptWhen } : {}),
  });
}

/**
 * Continue's `cn -p` with a fresh home whose one model is `run.model` at `proxyUrl`/v1 (provider
 * openai, as Airlock's Connect writes it), the token as its API key, its telemetry off.
 */
export async function runContinuePrint(run: AgentRun): Promise<CliResult> {
  const configDir = join(run.sandbox.homeDir, '.continue');
  await mkdir(configDir, { recursive: true });
  const configPath = join(configDir, 'config.yaml');
  const config = [
    'name: Airlock test',
    'version: 1.0.0',
    'schema: v1',
    'models:',
    '  - name: Airlock',
    '    provider: openai',
    `    model: ${JSON.stringify(run.model)}`,
    `    apiBase: ${JSON.stringify(`${run.proxyUrl}/v1`)}`,
    `    apiKey: ${JSON.stringify(run.token)}`,
    '    roles: [chat, edit, apply]',
  ];
  await writeFile(configPath, `${config.join('\n')}\n`);
  // Without it the first run asks the onboarding questions.
  await writeFile(join(configDir, '.onboarding_complete'), '');
  return runCli({
    cli: continueCli(),
    args: ['-p', run.prompt, '--config', configPath, ...(run.extraArgs ?? [])],
    cwd: run.sandbox.workDir,
    env: offlineClientEnv(run.sandbox.homeDir, { CONTINUE_CLI_ENABLE_TELEMETRY: '0', CONTINUE_METRICS_ENABLED: '0' }),
    timeoutMs: CLI_TIMEOUT_MS,
  });
}
