import { createHash } from 'node:crypto';
import type { ClientToolName, ClientToolNames } from '../requestResult.ts';

/**
 * A Responses `namespace` tool groups function tools under one name (Codex sends its sub-agent
 * tools as `multi_agent_v1`, and MCP servers' tools as `mcp__<server>__`: openai/codex
 * codex-rs/tools/src/tool_spec.rs). Chat has no namespaces, and its function names must match
 * ^[a-zA-Z0-9_-]{1,64}$, so each member goes as a function of its own, named
 * `<namespace>__<name>`; Codex routes a call only by its namespace and bare name together, so the
 * answer's call gets them back (ClientToolNames, read by output.ts).
 */

/** A namespace's member, as the client names it. */
export type NamespacedTool = Required<Pick<ClientToolName, 'namespace' | 'name'>>;

const CHAT_NAME_MAX_CHARS = 64;
/**
 * The namespace Codex puts its own tools in when it sends them in `additional_tools`: the default
 * namespace of OpenAI's function tools (its models call them `functions.<name>`). Its tools keep
 * their bare names, the ones Codex's instructions use, and Codex runs a call of them with or without
 * the namespace (seen with Codex 0.169; https://github.com/theopenco/llmgateway/pull/3613 does the same).
 */
const DEFAULT_NAMESPACE = 'functions';
const NAME_HASH_CHARS = 8;
const SEPARATOR = '__';

/** The chat function name a namespaced tool is offered under, before any clash with another name. */
export function chatNameOf(tool: NamespacedTool): string {
  // An MCP namespace (`mcp__server__`) already ends in the separator: its tools keep the names Codex gave them before namespaces.
  const joined =
    tool.namespace === DEFAULT_NAMESPACE
      ? tool.name
      : tool.namespace.endsWith(SEPARATOR)
        ? `${tool.namespace}${tool.name}`
        : `${tool.namespace}${SEPARATOR}${tool.name}`;
  const safe = joined.replace(/[^a-zA-Z0-9_-]/g, '_');
  return safe.length <= CHAT_NAME_MAX_CHARS ? safe : hashed(safe, tool);
}

/** Cut to fit, and told apart from any other cut of the same start by a hash of the whole. */
function hashed(name: string, tool: NamespacedTool): string {
  const hash = createHash('sha256').update(`${tool.namespace}\n${tool.name}`).digest('hex').slice(0, NAME_HASH_CHARS);
  return `${name.slice(0, CHAT_NAME_MAX_CHARS - NAME_HASH_CHARS - 1)}_${hash}`;
}

/**
 * Names one request's namespaced tools for chat: each name unique, none of them a plain function
 * tool's. History calls (a `function_call` item with its namespace) get the name their tool has.
 */
export class NamespacedToolNamer {
  private readonly taken: Set<string>;
  private readonly chatNames = new Map<string, string>();
  private readonly byChatName: Record<string, ClientToolName> = toolNameRecord({});

  constructor(plainToolNames: Iterable<string>) {
    this.taken = new Set(plainToolNames);
  }

  /** The chat name of a namespace's tool, given once per tool; a custom tool's calls carry raw text (`freeform`). */
  name(tool: NamespacedTool, freeform = false): string {
    const key = toolKey(tool);
    const given = this.chatNames.get(key);
    if (given !== undefined) return given;
    const preferred = chatNameOf(tool);
    const chatName = this.taken.has(preferred) ? hashed(preferred, tool) : preferred;
    this.taken.add(chatName);
    this.chatNames.set(key, chatName);
    this.byChatName[chatName] = freeform ? { ...tool, freeform } : tool;
    return chatName;
  }

  /** The name a call of this tool went as: its tool's, or for a tool no longer offered, the one it would get. */
  callName(tool: NamespacedTool): string {
    return this.chatNames.get(toolKey(tool)) ?? chatNameOf(tool);
  }

  /**
   * Each chat name given, to the tool it stands for; and a member's bare name where it is that of
   * one tool only and of no plain tool, since some models call a tool by its bare name (DeepSeek:
   * https://github.com/router-for-me/CLIProxyAPI/issues/4106). A fresh record: the caller may add to it.
   */
  clientNames(): Record<string, ClientToolName> {
    const names = toolNameRecord(this.byChatName);
    const bareCounts = new Map<string, number>();
    for (const tool of Object.values(this.byChatName)) bareCounts.set(tool.name, (bareCounts.get(tool.name) ?? 0) + 1);
    for (const tool of Object.values(this.byChatName)) {
      if (bareCounts.get(tool.name) === 1 && !this.taken.has(tool.name)) names[tool.name] = tool;
    }
    return names;
  }
}

function toolKey(tool: NamespacedTool): string {
  return `${tool.namespace}\n${tool.name}`;
}

/**
 * A copy of `names` with no prototype: a client names its tools, and `__proto__` assigned on a plain
 * object sets its prototype instead of naming a tool (the lookups read own entries only).
 */
export function toolNameRecord(names: Readonly<Record<string, ClientToolName>>): Record<string, ClientToolName> {
  return Object.assign(Object.create(null) as Record<string, ClientToolName>, names);
}

/** The call's tool as the client names it (a namespace's tool gets its namespace back), and whether it is a custom tool. */
export function calledTool(names: ClientToolNames, chatName: string): ClientToolName {
  if (Object.hasOwn(names, chatName)) return names[chatName]!;
  // No tool's name has a dot (chat's and the Responses API's names allow none): one is a dotted name, read only here.
  const dot = chatName.lastIndexOf('.');
  return (dot === -1 ? null : dottedTool(names, chatName.slice(0, dot), chatName.slice(dot + 1))) ?? { name: chatName };
}

/**
 * The tool a model called by a dotted name instead of the one it is offered under: a namespace's
 * member as `<namespace>.<member>`, an MCP namespace also without its trailing separator (an Ollama
 * model called `mcp__node_repl__`'s `js` as `mcp__node_repl.js`: https://github.com/openai/codex/issues/23186),
 * and a plain tool as `functions.<name>`, in the default namespace (GPT-5.6:
 * https://github.com/tontinton/maki/pull/518). Codex runs such a call only once it has its
 * namespace and bare name back; a dotted name sent back to a chat gateway in the history is refused.
 */
function dottedTool(names: ClientToolNames, namespace: string, member: string): ClientToolName | null {
  for (const tool of Object.values(names)) {
    if (tool.name === member && (tool.namespace === namespace || tool.namespace === `${namespace}${SEPARATOR}`)) return tool;
  }
  if (namespace !== DEFAULT_NAMESPACE) return null;
  // A plain tool: only a custom tool or a tool search has an entry (a namespace's member under its bare name is not one).
  const plain = Object.hasOwn(names, member) ? names[member]! : null;
  return plain !== null && plain.namespace === undefined ? plain : { name: member };
}
