import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerChat, type ChatSettings } from './chat.ts';
import { parseJsonBody } from './chatRequest.ts';
import { embeddingsBody, validateEmbeddingsRequest } from './embeddings.ts';
import { defaultErrorForStatus, invalidApiKey, invalidRequest, modelNotFound } from './errors.ts';
import type { FaultQueue } from './faults.ts';
import { notFoundPage, websitePage } from './html.ts';
import { modelList, ownerOf } from './models.ts';
import type { RequestRecorder } from './recorder.ts';
import { sendHtml, sendJson, settledUnlessClosed, waitUnlessClosed } from './respond.ts';
import { pathnameOf, routeOf, type Route } from './routes.ts';
import type { Fault } from './types.ts';

export interface SimulatorState {
  recorder: RequestRecorder;
  faults: FaultQueue;
  modelIds: readonly string[];
  chat: ChatSettings;
  recordBodies: boolean;
  nextSequence(): string;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

export async function dispatch(request: IncomingMessage, response: ServerResponse, state: SimulatorState): Promise<void> {
  const entry = state.recorder.record(request);
  const sequence = state.nextSequence();
  response.setHeader('x-request-id', `req_${sequence}`);
  const closedController = new AbortController();
  response.once('close', () => closedController.abort());
  const closed = closedController.signal;

  const body = await readBody(request);
  if (state.recordBodies) entry.body = body;
  const route = routeOf(entry.method, entry.path);
  const chatJson = route.kind === 'chat' ? parseJsonBody(body) : null;
  const isStream = chatJson?.ok === true && chatJson.value.stream === true;
  let fault = state.faults.take({ path: entry.path, isChat: route.kind === 'chat', isStream });

  if (fault?.kind === 'delayHeaders') {
    if (!(await waitUnlessClosed(fault.ms, closed))) return;
    fault = undefined;
  }
  if (fault?.kind === 'holdHeaders') {
    if (!(await settledUnlessClosed(fault.until, closed))) return;
    fault = undefined;
  }
  if (fault !== undefined && answerGenericFault(response, fault)) return;

  if (route.kind === 'misrouted') {
    sendHtml(response, 404, notFoundPage(pathnameOf(entry.path)));
    return;
  }
  if (!entry.authOk) {
    sendJson(response, 401, invalidApiKey());
    return;
  }
  if (route.kind === 'chat' && chatJson !== null) {
    if (!chatJson.ok) sendJson(response, chatJson.status, chatJson.body);
    else await answerChat(response, chatJson.value, fault, state.chat, sequence, closed);
    return;
  }
  answerApi(response, route, body, state);
}

/** Faults that replace the whole answer. Returns false for faults that only shape a chat reply. */
function answerGenericFault(response: ServerResponse, fault: Fault): boolean {
  switch (fault.kind) {
    case 'status': {
      const headers: Record<string, string> = fault.retryAfterS === undefined ? {} : { 'retry-after': String(fault.retryAfterS) };
      sendJson(response, fault.status, fault.body ?? defaultErrorForStatus(fault.status), headers);
      return true;
    }
    case 'html':
      sendHtml(response, fault.status ?? 200, websitePage());
      return true;
    case 'hang':
      return true;
    default:
      return false;
  }
}

function answerApi(response: ServerResponse, route: Route, body: Buffer, state: SimulatorState): void {
  switch (route.kind) {
    case 'models':
      sendJson(response, 200, modelList(state.modelIds));
      return;
    case 'model':
      if (state.modelIds.includes(route.id)) sendJson(response, 200, { id: route.id, object: 'model', owned_by: ownerOf(route.id) });
      else sendJson(response, 404, modelNotFound(route.id));
      return;
    case 'embeddings': {
      const json = parseJsonBody(body);
      const validated = json.ok ? validateEmbeddingsRequest(json.value, state.chat.limits.knownModels) : json;
      if (validated.ok) sendJson(response, 200, embeddingsBody(validated.value));
      else sendJson(response, validated.status, validated.body);
      return;
    }
    case 'images':
      // A side-effect creation: every call makes a new image, so a replay is told apart from a resend.
      sendJson(response, 200, { created: Math.floor(Date.now() / 1000), data: [{ url: `https://images.simulator.invalid/${state.nextSequence()}.png`, ...revisedPromptOf(body) }] });
      return;
    case 'methodNotAllowed':
      sendJson(response, 405, invalidRequest('Method not allowed for this path.', 'method_not_allowed'));
      return;
    default:
      sendJson(response, 404, invalidRequest('Unknown API path.', 'not_found'));
  }
}

/** Image models echo the prompt they drew as `revised_prompt`, so a prompt can come back in the answer. */
function revisedPromptOf(body: Buffer): { revised_prompt?: string } {
  const json = parseJsonBody(body);
  return json.ok && typeof json.value.prompt === 'string' ? { revised_prompt: json.value.prompt } : {};
}
