export interface CodexProviderSettings {
  /** The proxy's root URL; Codex appends `/responses` to `<root>/v1`. */
  proxyUrl: string;
  model: string;
  /** The environment variable Codex reads the client token from. */
  tokenEnvVariable: string;
  /** Codex's own retries of a failed request and of a failed stream; off unless a test is about them. */
  maxRetries?: number;
  /**
   * Codex first tries the Responses API over a WebSocket (a GET upgrade of `<base>/responses`) when
   * the provider says it supports one, as the built-in OpenAI provider does; off unless a test is about it.
   */
  supportsWebsockets?: boolean;
  /** Codex compacts the conversation once a turn's tokens pass this (model_auto_compact_token_limit). */
  autoCompactTokenLimit?: number;
  /**
   * Stdio MCP servers Codex launches, by name: the command and its arguments. Their tools run
   * unasked: `codex exec` never asks, and refuses an unapproved MCP call ("MCP tool call requires
   * approval, but approval policy is never").
   */
  mcpServers?: Record<string, readonly string[]>;
}

function mcpServerSections(servers: Record<string, readonly string[]>): string[] {
  return Object.entries(servers).flatMap(([name, [command, ...args]]) => [
    `[mcp_servers.${name}]`,
    `command = ${JSON.stringify(command)}`,
    `args = ${JSON.stringify(args)}`,
    'default_tools_approval_mode = "approve"',
    '',
  ]);
}

/** What keeps Codex from reaching anywhere but Airlock: no update check, analytics or feedback upload. */
function offlineSettings(model: string, autoCompactTokenLimit: number | undefined): string[] {
  return [
    `model = ${JSON.stringify(model)}`,
    'check_for_update_on_startup = false',
    ...(autoCompactTokenLimit === undefined ? [] : [`model_auto_compact_token_limit = ${autoCompactTokenLimit}`]),
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
  ];
}

/**
 * config.toml for CODEX_HOME: one custom provider at Airlock speaking Responses, and nothing
 * that reaches elsewhere. Retries are off (unless asked for) so a proxy failure shows up as one
 * failed request rather than a slow test.
 */
export function codexConfigToml(settings: CodexProviderSettings): string {
  return [
    'model_provider = "airlock"',
    ...offlineSettings(settings.model, settings.autoCompactTokenLimit),
    '[model_providers.airlock]',
    'name = "Airlock"',
    `base_url = ${JSON.stringify(`${settings.proxyUrl}/v1`)}`,
    'wire_api = "responses"',
    `env_key = ${JSON.stringify(settings.tokenEnvVariable)}`,
    `request_max_retries = ${settings.maxRetries ?? 0}`,
    `stream_max_retries = ${settings.maxRetries ?? 0}`,
    ...(settings.supportsWebsockets ? ['supports_websockets = true'] : []),
    '',
    ...mcpServerSections(settings.mcpServers ?? {}),
  ].join('\n');
}

/** config.toml for CODEX_HOME: OpenAI's built-in provider pointed at Airlock (`openai_base_url`), as a user may set it by hand. */
export function codexOpenAiProviderToml(settings: Pick<CodexProviderSettings, 'proxyUrl' | 'model' | 'autoCompactTokenLimit'>): string {
  return [
    `openai_base_url = ${JSON.stringify(`${settings.proxyUrl}/v1`)}`,
    ...offlineSettings(settings.model, settings.autoCompactTokenLimit),
  ].join('\n');
}
