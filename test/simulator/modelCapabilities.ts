import type { SimulatedErrorBody } from './errors.ts';
import { imageInputUnsupported, modelNotOpen, streamUnsupported, toolsUnsupported } from './gatewayErrors.ts';

/**
 * What one model can do. Real accounts mix models that take tools, images and streams with
 * models that refuse each of them, so each must be verified per model (docs/gateway-spec.md §4.2).
 */
export interface ModelCapabilities {
  tools: boolean;
  images: boolean;
  stream: boolean;
  /** Thinks before answering and sends the thinking (reasoning_content or reasoning). */
  reasoning: boolean;
  /** Takes `reasoning_effort`; one that does not has it refused or ignored, as its dialect does (reasoningEffort.ts). */
  reasoningEffort: boolean;
  /** The `reasoning_effort` levels it takes, when not every one: another is refused (reasoningEffort.ts). */
  reasoningEffortLevels: readonly string[] | null;
  /**
   * Takes chat's `max_tokens`; one that does not takes only `max_completion_tokens` (OpenAI's reasoning
   * models), and `max_tokens` is refused or mapped, as its dialect does (maxTokens.ts).
   */
  maxTokens: boolean;
}

export const FULL_CAPABILITIES: ModelCapabilities = {
  tools: true,
  images: true,
  stream: true,
  reasoning: false,
  reasoningEffort: true,
  reasoningEffortLevels: null,
  maxTokens: true,
};

export interface CapabilityRefusal {
  status: number;
  body: SimulatedErrorBody;
  subject: string;
}

export interface AccountModels {
  capabilities: Readonly<Record<string, Partial<ModelCapabilities>>>;
  /** Listed by /models but not open to this account's key (a relay's per-token model list). */
  closedModels: ReadonlySet<string>;
}

export function capabilitiesOf(account: AccountModels, model: string): ModelCapabilities {
  return { ...FULL_CAPABILITIES, ...account.capabilities[model] };
}

/** The refusal a gateway answers a chat request with for what its model cannot do, or null. */
export function capabilityRefusal(account: AccountModels, json: Record<string, unknown>): CapabilityRefusal | null {
  const model = typeof json.model === 'string' ? json.model : '';
  if (account.closedModels.has(model)) return { status: 403, body: modelNotOpen(model), subject: model };
  const capabilities = capabilitiesOf(account, model);
  if (!capabilities.tools && Array.isArray(json.tools) && json.tools.length > 0)
    return { status: 400, body: toolsUnsupported(model), subject: model };
  const imagePath = capabilities.images ? null : firstImagePartPath(json.messages);
  if (imagePath !== null) return { status: 400, body: imageInputUnsupported(imagePath), subject: model };
  if (!capabilities.stream && json.stream === true) return { status: 400, body: streamUnsupported(), subject: model };
  return null;
}

/** OpenAI names the offending part `messages.[i].content.[j].type`. */
function firstImagePartPath(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (const [messageIndex, message] of messages.entries()) {
    const content = (message as { content?: unknown } | null)?.content;
    if (!Array.isArray(content)) continue;
    const partIndex = content.findIndex((part: { type?: unknown } | null) => part?.type === 'image_url');
    if (partIndex !== -1) return `messages.[${messageIndex}].content.[${partIndex}].type`;
  }
  return null;
}
