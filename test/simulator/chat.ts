import type { ServerResponse } from 'node:http';
import { completionBody, planReply, planStream } from './chatReply.ts';
import { validateChatRequest, type ChatLimits } from './chatRequest.ts';
import { cutConnection, sendJson } from './respond.ts';
import { streamShapeFor, writeChatStream, writeRawChunks } from './stream.ts';
import type { Fault } from './types.ts';

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

/** Answers a parsed chat completion request, shaped by the fault it took (if any). */
export async function answerChat(
  response: ServerResponse,
  json: Record<string, unknown>,
  fault: Fault | undefined,
  settings: ChatSettings,
  sequence: string,
  closed: AbortSignal,
  echoedKey: string | null = null,
): Promise<void> {
  const validated = validateChatRequest(json, settings.limits);
  if (!validated.ok) {
    sendJson(response, validated.status, validated.body);
    return;
  }
  if (fault?.kind === 'bodyChunks') {
    await writeRawChunks(response, fault.chunks, fault.intervalMs ?? settings.streamChunkIntervalMs, closed);
    return;
  }
  const request = validated.value;
  const reply = fault?.kind === 'reply' ? fault : fault?.kind === 'echoKey' && echoedKey !== null ? echoReply(echoedKey) : undefined;
  const plan = planReply(request, { sequence, createdS: Math.floor(Date.now() / 1000) }, reply);
  if (!request.stream) {
    if (fault?.kind === 'cutAfter') {
      // A non-streaming reply broken off halfway through its JSON.
      const text = JSON.stringify(completionBody(plan));
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      response.write(text.slice(0, Math.floor(text.length / 2)));
      cutConnection(response);
      return;
    }
    sendJson(response, 200, completionBody(plan));
    return;
  }
  const pieceChars = fault?.kind === 'echoKey' ? (fault.deltaChars ?? ECHO_DELTA_CHARS) : undefined;
  const streamPlan = planStream(plan, settings.streamChunkCount, request.includeUsage, pieceChars);
  await writeChatStream(response, streamPlan, streamShapeFor(fault, settings.streamChunkIntervalMs), closed);
}
