import type { GatewaySimulator } from '../../simulator/index.ts';

export interface ReceivedChatMessage {
  role: string;
  content: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

export interface ReceivedChatRequest {
  path: string;
  authOk: boolean;
  /** The upstream must never see a client's x-api-key: the proxy swaps in the gateway key. */
  xApiKey: string | undefined;
  model: string;
  messages: ReceivedChatMessage[];
  toolNames: string[];
}

/** What reached the gateway, parsed: the Chat Completions requests a translation produced. */
export function receivedChatRequests(simulator: GatewaySimulator): ReceivedChatRequest[] {
  return simulator.received.map((request) => {
    const body = JSON.parse(request.body.toString('utf8')) as {
      model: string;
      messages: ReceivedChatMessage[];
      tools?: { function: { name: string } }[];
    };
    const xApiKey = request.headers['x-api-key'];
    return {
      path: request.path,
      authOk: request.authOk,
      xApiKey: Array.isArray(xApiKey) ? xApiKey.join(',') : xApiKey,
      model: body.model,
      messages: body.messages,
      toolNames: (body.tools ?? []).map((tool) => tool.function.name),
    };
  });
}

/** The `role: "tool"` message answering the assistant's call to `toolName` in the same request. */
export function toolResultFor(request: ReceivedChatRequest, toolName: string): { callId: string; content: string } | undefined {
  const call = request.messages.flatMap((message) => message.tool_calls ?? []).find((toolCall) => toolCall.function.name === toolName);
  const result = request.messages.find((message) => message.role === 'tool' && message.tool_call_id === call?.id);
  if (call === undefined || result === undefined) return undefined;
  return { callId: call.id, content: typeof result.content === 'string' ? result.content : JSON.stringify(result.content) };
}
