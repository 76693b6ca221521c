import type { ServerResponse } from 'node:http';
import { completionBody, planReply, type ReplyPlan } from './chatReply.ts';
import { validateChatRequest, type ChatLimits } from './chatRequest.ts';
import { framingFor, planDialectStream, usageWithReasoning, withReasoning } from './dialectStream.ts';
import { streamErrorEvent } from './errors.ts';
import { renderError } from './gatewayErrors.ts';
import { capabilitiesOf, capabilityRefusal, type AccountModels } from './modelCapabilities.ts';
import { answerModelFailure, streamErrorData } from './modelFailure.ts';
import { maxTokensRefusal, temperatureRefusal } from './maxTokens.ts';
import { reasoningEffortRefusal } from './reasoningEffort.ts';
import { returnedReasoningRefusal } from './returnedReasoning.ts';
import { thoughtSignatureFor, thoughtSignatureRefusal } from './thoughtSignatures.ts';
import { dropsRelayThinking, relayThinkingFields, relayThinkingRefusal } from './relayThinking.ts';
import { cutConnection, sendJson } from './respond.ts';
import { streamShapeFor, writeChatStream, writeRawChunks } from './stream.ts';
import type { Fault } from './types.ts';
import { liteLlmResponseCost } from './usageWording.ts';
import { sendGatewayError, type Voice } from './voice.ts';

/** A model repeating a pasted key streams it a few characters at a time. */
const ECHO_DELTA_CHARS = [2, 3];

function echoReply(key: string): Extract<Fault, { kind: 'reply' }> {
  return { kind: 'reply', content: `Here is the key you use: ${key} (keep it safe).` };
}

export interface ChatSettings {
  limits: ChatLimits;
  streamChunkCount: number;
  streamChunkIntervalMs: number;
}

export interface ChatContext {
  /** Unique per simulator, e.g. 'sim000001'. */
  sequence: string;
  voice: Voice;
  account: AccountModels;
}

/** Answers a parsed chat completion request, shaped by the fault it took (if any) and the dialect. */
export async function answerChat(
  response: ServerResponse,
  json: Record<string, unknown>,
  fault: Fault | undefined,
  settings: ChatSettings,
  context: ChatContext,
  closed: AbortSignal,
  /** The key the request came with, for faults that hand it back (echoKey, modelFails with quoteKey). */
  sentKey: string | null = null,
): Promise<void> {
  const { voice } = context;
  const capabilities = capabilitiesOf(context.account, String(json.model));
  const refusal =
    capabilityRefusal(context.account, json) ??
    maxTokensRefusal(voice.dialect, capabilities, json) ??
    temperatureRefusal(voice.dialect, capabilities, json) ??
    reasoningEffortRefusal(voice.dialect, capabilities, json) ??
    returnedReasoningRefusal(voice.dialect, capabilities, json.messages) ??
    thoughtSignatureRefusal(voice.dialect, json.messages) ??
    relayThinkingRefusal(voice.dialect, String(json.model), json.messages);
  if (refusal !== null) {
    sendGatewayError(response, voice, refusal.status, refusal.body, { subject: refusal.subject });
    return;
  }
  const validated = validateChatRequest(json, settings.limits);
  if (!validated.ok) {
    const subject = validated.body.error.code === 'model_not_found' ? { subject: String(json.model) } : {};
    sendGatewayError(response, voice, validated.status, validated.body, subject);
    return;
  }
  if (fault?.kind === 'bodyChunks') {
    await writeRawChunks(
      response,
      fault.chunks,
      { intervalMs: fault.intervalMs ?? settings.streamChunkIntervalMs, holdOpen: fault.holdOpen === true, pause: fault.pause },
      closed,
    );
    return;
  }
  const request = validated.value;
  if (fault?.kind === 'modelFails') {
    const chunk = { id: `chatcmpl-${context.sequence}`, created: Math.floor(Date.now() / 1000), model: request.model };
    answerModelFailure(response, fault, request.stream, voice, chunk, sentKey);
    return;
  }
  const reply = fault?.kind === 'reply' ? fault : fault?.kind === 'echoKey' && sentKey !== null ? echoReply(sentKey) : undefined;
  const basePlan = planReply(request, { sequence: context.sequence, createdS: Math.floor(Date.now() / 1000) }, reply);
  const thinks = capabilitiesOf(context.account, request.model).reasoning && !dropsRelayThinking(voice.dialect, json.messages);
  const reasoning = reply?.reasoning ?? (thinks ? `Thinking about: ${request.lastUserText}` : null);
  const plan: ReplyPlan = {
    ...basePlan,
    usage: usageWithReasoning(basePlan.usage, reasoning),
    matchedStop: voice.dialect.namesMatchedStop ? basePlan.matchedStop : null,
    // The step's first call is signed, as Gemini signs it.
    toolCalls: basePlan.toolCalls.map((call, index) =>
      voice.dialect.signsToolCalls && index === 0 ? { ...call, thoughtSignature: thoughtSignatureFor(call.id) } : call,
    ),
  };
  const stream = voice.dialect.stream;
  if (!request.stream && !voice.dialect.streamsWholeRequests) {
    const wording = voice.dialect.usageWording;
    // LiteLLM states a reply's cost in its body only when it streams; otherwise in a header (usageWording.ts).
    const costHeader: Record<string, string> =
      wording === 'litellm' && plan.usage !== null ? { 'x-litellm-response-cost': String(liteLlmResponseCost(plan.usage)) } : {};
    const body = withReasoning(completionBody(plan, wording === 'litellm' ? 'openai' : wording), reasoning, stream.reasoningField, {
      // Signed for the model the request named, which the next request names again: not the answer's model string.
      ...(reasoning === null ? {} : relayThinkingFields(voice.dialect, String(json.model), reasoning)),
    });
    if (fault?.kind === 'cutAfter') {
      // A non-streaming reply broken off halfway through its JSON.
      const text = JSON.stringify(body);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      response.write(text.slice(0, Math.floor(text.length / 2)));
      cutConnection(response);
      return;
    }
    sendJson(response, 200, body, costHeader);
    return;
  }
  const pieceChars = fault?.kind === 'echoKey' ? (fault.deltaChars ?? ECHO_DELTA_CHARS) : undefined;
  const streamPlan = planDialectStream(
    {
      plan,
      reasoning,
      usageWording: voice.dialect.usageWording,
      thinkingRelay: { dialect: voice.dialect, requestedModel: String(json.model) },
    },
    settings.streamChunkCount,
    // A whole answer has its usage; streamed in its place, it keeps it.
    request.includeUsage || !request.stream,
    stream,
    pieceChars,
  );
  const framing = framingFor(stream, brokenStreamErrorData(voice, plan));
  await writeChatStream(response, streamPlan, streamShapeFor(fault, settings.streamChunkIntervalMs), closed, framing);
}

/** What a broken stream's error event carries in this dialect. */
function brokenStreamErrorData(voice: Voice, plan: ReplyPlan): object {
  const rendered = renderError(voice.dialect, streamErrorEvent(), { status: 502, requestId: voice.requestId });
  return streamErrorData(voice, plan, rendered.text);
}
