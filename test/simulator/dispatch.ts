import { brotliCompressSync, deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerCredentialOf } from './auth.ts';
import { answerSpeech, answerTranscription, formParts } from './audio.ts';
import { answerChat, type ChatSettings } from './chat.ts';
import { answerLegacyCompletion } from './completions.ts';
import { parseJsonBody } from './chatRequest.ts';
import type { Dialect } from './dialect.ts';
import { embeddingsBody, validateEmbeddingsRequest } from './embeddings.ts';
import { errorPage, rayIdFor } from './errorPages.ts';
import { defaultErrorForStatus, invalidApiKey, invalidRequest, modelNotFound } from './errors.ts';
import type { FaultQueue } from './faults.ts';
import { insufficientQuota } from './gatewayErrors.ts';
import { notFoundPage, websitePage } from './html.ts';
import { keyRateLimited, type KeyRequestLimits } from './keyLimits.ts';
import type { AccountModels } from './modelCapabilities.ts';
import { modelList, ownerOf } from './models.ts';
import type { RequestRecorder } from './recorder.ts';
import {
  closeAfter,
  cutConnection,
  resetAfter,
  sendHtml,
  sendJson,
  settledUnlessClosed,
  waitUnlessClosed,
  writeInTwoParts,
} from './respond.ts';
import { pathnameOf, routeOf, type Route } from './routes.ts';
import { DEFAULT_VIDEO_SECONDS, VIDEO_SECONDS, videoBody, type TaskStore } from './tasks.ts';
import { answerNative, type NativeProtocol } from './native.ts';
import type { Fault } from './types.ts';
import { sendGatewayError, type Voice } from './voice.ts';

export interface SimulatorState {
  recorder: RequestRecorder;
  faults: FaultQueue;
  modelIds: readonly string[];
  chat: ChatSettings;
  recordBodies: boolean;
  nextSequence(): string;
  dialect: Dialect;
  account: AccountModels;
  tasks: TaskStore;
  native: { protocols: ReadonlySet<NativeProtocol>; holdOpenAfterEnd: boolean };
  keyLimits: KeyRequestLimits;
  /** Told of each request's first body bytes, before the rest arrives (nextBodyStart). */
  bodyStartWatchers: ((path: string, bytes: number) => void)[];
}

function readBody(request: IncomingMessage, onFirstBytes: (bytes: number) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      if (chunks.length === 0) onFirstBytes(chunk.length);
      chunks.push(chunk);
    });
    request.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

export async function dispatch(request: IncomingMessage, response: ServerResponse, state: SimulatorState): Promise<void> {
  const entry = state.recorder.record(request);
  const sequence = state.nextSequence();
  const voice: Voice = { dialect: state.dialect, requestId: `req_${sequence}` };
  if (voice.dialect.requestIdHeader !== null) response.setHeader(voice.dialect.requestIdHeader, voice.requestId);
  const closedController = new AbortController();
  response.once('close', () => closedController.abort());
  const closed = closedController.signal;

  const body = await readBody(request, (bytes) => {
    for (const watcher of state.bodyStartWatchers) watcher(entry.path, bytes);
  });
  if (state.recordBodies) entry.body = body;
  const route = routeOf(entry.method, entry.path);
  const chatJson = route.kind === 'chat' ? parseJsonBody(body) : null;
  const isStream = chatJson?.ok === true && chatJson.value.stream === true;
  // A gateway refuses a key over its limit before any model runs: that request must not use up the
  // answer a test scripted for the one that gets through (e.g. on the pool's next key).
  if (entry.authOk && !state.keyLimits.admit(bearerCredentialOf(request.headers.authorization))) {
    sendGatewayError(response, voice, 429, keyRateLimited(), { headers: state.keyLimits.headersFor(voice.dialect) });
    return;
  }
  let fault = state.faults.take({ path: entry.path, isChat: route.kind === 'chat', isStream, isTaskCreation: route.kind === 'videos' });

  const sentKey = fault?.kind === 'echoKey' || fault?.kind === 'modelFails' ? bearerCredentialOf(request.headers.authorization) : null;
  const echoedKey = fault?.kind === 'echoKey' ? sentKey : null;
  if (echoedKey !== null) response.setHeader('x-request-id', `req_${echoedKey}`);
  if (fault?.kind === 'hold') {
    fault.arrived();
    await fault.released;
    fault = undefined;
  }
  if (fault?.kind === 'delayHeaders') {
    if (!(await waitUnlessClosed(fault.ms, closed))) return;
    fault = undefined;
  }
  if (fault?.kind === 'holdHeaders') {
    if (!(await settledUnlessClosed(fault.until, closed))) return;
    fault = undefined;
  }
  if (fault !== undefined && answerGenericFault(response, fault, voice, sequence, closed)) return;

  if (route.kind === 'misrouted') {
    sendHtml(response, 404, notFoundPage(pathnameOf(entry.path)));
    return;
  }
  if (!entry.authOk) {
    sendGatewayError(response, voice, 401, invalidApiKey());
    return;
  }
  if (route.kind === 'chat' && chatJson !== null) {
    if (!chatJson.ok) sendGatewayError(response, voice, chatJson.status, chatJson.body);
    else await answerChat(response, chatJson.value, fault, state.chat, { sequence, voice, account: state.account }, closed, sentKey);
    return;
  }
  if (route.kind === 'native' && state.native.protocols.has(route.protocol === 'responses' ? 'responses' : 'messages')) {
    const json = parseJsonBody(body);
    if (!json.ok) sendGatewayError(response, voice, json.status, json.body);
    else await answerNative(response, route.protocol, json.value, sequence, state.native, closed);
    return;
  }
  if (answerMediaApi(request, response, route, body, state, voice, echoedKey)) return;
  answerApi(response, route, { body, contentType: request.headers['content-type'] }, state, voice, fault);
}

/** The audio and legacy completion endpoints: what a client sends them and gets back (audio.ts, completions.ts). */
function answerMediaApi(
  request: IncomingMessage,
  response: ServerResponse,
  route: Route,
  body: Buffer,
  state: SimulatorState,
  voice: Voice,
  echoedKey: string | null,
): boolean {
  if (route.kind === 'transcriptions') {
    answerTranscription(response, body, request.headers['content-type'], voice, echoedKey);
    return true;
  }
  if (route.kind !== 'speech' && route.kind !== 'completions') return false;
  const json = parseJsonBody(body);
  if (!json.ok) sendGatewayError(response, voice, json.status, json.body);
  else if (route.kind === 'speech') answerSpeech(response, json.value, voice);
  else answerLegacyCompletion(response, json.value, state.chat.limits.knownModels, voice, echoedKey);
  return true;
}

/** Faults that replace the whole answer. Returns false for faults that only shape a reply. */
function answerGenericFault(response: ServerResponse, fault: Fault, voice: Voice, sequence: string, closed: AbortSignal): boolean {
  switch (fault.kind) {
    case 'status': {
      const retryAfter = fault.retryAfterDate?.toUTCString() ?? (fault.retryAfterS === undefined ? undefined : String(fault.retryAfterS));
      const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': retryAfter };
      if (fault.body !== undefined) sendJson(response, fault.status, fault.body, headers);
      else sendGatewayError(response, voice, fault.status, defaultErrorForStatus(fault.status), { keepStatus: true, headers });
      return true;
    }
    case 'quota':
      sendGatewayError(response, voice, 429, insufficientQuota());
      return true;
    case 'html':
      sendHtml(response, fault.status ?? 200, websitePage());
      return true;
    case 'errorPage': {
      const page = errorPage(fault.server ?? 'nginx', fault.status, rayIdFor(sequence));
      response.writeHead(fault.status, {
        ...page.headers,
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(page.html),
      });
      response.end(page.html);
      return true;
    }
    case 'text': {
      if (fault.pausedAt !== undefined) {
        response.writeHead(fault.status, {
          'content-type': fault.contentType ?? 'text/plain; charset=utf-8',
          ...(fault.encoding === undefined ? {} : { 'content-encoding': fault.encoding }),
          ...fault.headers,
        });
        void writeInTwoParts(response, Buffer.from(fault.text), fault.pausedAt.byte, fault.pausedAt.until, closed, fault.encoding);
        return true;
      }
      const body = fault.mislabelled ? Buffer.from(fault.text) : encoded(fault.text, fault.encoding);
      if (fault.earlyHints !== undefined) response.writeEarlyHints(fault.earlyHints);
      response.writeHead(fault.status, {
        'content-type': fault.contentType ?? 'text/plain; charset=utf-8',
        ...(fault.trailers !== undefined
          ? { trailer: Object.keys(fault.trailers).join(', ') }
          : fault.chunked
            ? {}
            : { 'content-length': body.length }),
        ...(fault.encoding === undefined ? {} : { 'content-encoding': fault.encoding }),
        ...fault.headers,
      });
      if (fault.trailers !== undefined) response.addTrailers(fault.trailers);
      if (fault.resetAfterBytes !== undefined) resetAfter(response, body.subarray(0, fault.resetAfterBytes));
      else if (fault.closeAfterBytes !== undefined) closeAfter(response, body.subarray(0, fault.closeAfterBytes));
      else if (fault.stallAfterBytes === undefined) response.end(body);
      else response.write(body.subarray(0, fault.stallAfterBytes));
      return true;
    }
    case 'hang':
      return true;
    case 'closeUnanswered':
      response.socket?.destroy();
      return true;
    default:
      return false;
  }
}

function answerApi(
  response: ServerResponse,
  route: Route,
  { body, contentType }: { body: Buffer; contentType: string | undefined },
  state: SimulatorState,
  voice: Voice,
  fault: Fault | undefined,
): void {
  switch (route.kind) {
    case 'models':
      sendJson(response, 200, modelList(state.modelIds));
      return;
    case 'model':
      if (state.modelIds.includes(route.id)) sendJson(response, 200, { id: route.id, object: 'model', owned_by: ownerOf(route.id) });
      else sendGatewayError(response, voice, 404, modelNotFound(route.id), { subject: route.id });
      return;
    case 'embeddings': {
      const json = parseJsonBody(body);
      const validated = json.ok ? validateEmbeddingsRequest(json.value, state.chat.limits.knownModels) : json;
      if (validated.ok) sendJson(response, 200, embeddingsBody(validated.value));
      else sendGatewayError(response, voice, validated.status, validated.body, subjectOf(validated.body, json));
      return;
    }
    case 'videos':
      createVideoTask(response, videoRequestOf(body, contentType), state, voice, fault);
      return;
    case 'video': {
      const task = state.tasks.poll(route.id);
      if (task === undefined) sendGatewayError(response, voice, 404, invalidRequest(`No video task with id '${route.id}'.`, 'not_found'));
      else sendJson(response, 200, videoBody(task));
      return;
    }
    case 'images':
      // A side-effect creation: every call makes a new image, so a replay is told apart from a resend.
      sendJson(response, 200, {
        created: Math.floor(Date.now() / 1000),
        data: Array.from({ length: imageCountOf(body, contentType) }, () => ({
          url: `https://images.simulator.invalid/${state.nextSequence()}.png`,
          ...revisedPromptOf(body),
        })),
      });
      return;
    case 'methodNotAllowed':
      sendGatewayError(response, voice, 405, invalidRequest('Method not allowed for this path.', 'method_not_allowed'));
      return;
    default:
      sendGatewayError(response, voice, 404, invalidRequest('Unknown API path.', 'not_found'));
  }
}

/** The model a refusal is about, when the request named one. */
function subjectOf(error: { error: { code: string } }, json: { ok: boolean; value?: Record<string, unknown> }): { subject?: string } {
  const model = json.ok ? json.value?.model : undefined;
  return error.error.code === 'model_not_found' && typeof model === 'string' ? { subject: model } : {};
}

/**
 * A video creation's fields: OpenAI's POST /videos takes multipart/form-data (its reference image
 * is a file; the openai SDK 6.x sends every creation as a form), relays copying it take JSON too.
 */
function videoRequestOf(body: Buffer, contentType: string | undefined): ReturnType<typeof parseJsonBody> {
  const parts = formParts(body, contentType);
  if (parts === null) return parseJsonBody(body);
  const fields = Object.fromEntries(parts.filter((part) => part.filename === null).map((part) => [part.name, part.value.toString('utf8')]));
  return parseJsonBody(Buffer.from(JSON.stringify(fields)));
}

/** Creates (and so bills) a task first; a scripted fault may then lose its answer on the way back. */
function createVideoTask(
  response: ServerResponse,
  json: ReturnType<typeof parseJsonBody>,
  state: SimulatorState,
  voice: Voice,
  fault: Fault | undefined,
): void {
  if (!json.ok) {
    sendGatewayError(response, voice, json.status, json.body);
    return;
  }
  const { model, prompt } = json.value;
  if (typeof model !== 'string' || !state.chat.limits.knownModels.has(model)) {
    const named = typeof model === 'string' ? model : '';
    sendGatewayError(response, voice, 404, modelNotFound(named), { subject: named });
    return;
  }
  if (typeof prompt !== 'string' || prompt === '') {
    sendGatewayError(response, voice, 400, invalidRequest('`prompt` must be a non-empty string.', 'invalid_request', 'prompt'));
    return;
  }
  const seconds = json.value.seconds === undefined ? DEFAULT_VIDEO_SECONDS : String(json.value.seconds);
  if (!VIDEO_SECONDS.has(seconds)) {
    sendGatewayError(response, voice, 400, invalidRequest('`seconds` must be one of 4, 8 or 12.', 'invalid_value', 'seconds'));
    return;
  }
  const failure = fault?.kind === 'taskFails' ? (fault.message ?? 'The video could not be generated.') : null;
  const task = state.tasks.create({ id: `video_${state.nextSequence()}`, model, prompt, seconds, failure });
  if (fault?.kind !== 'createThenFail') sendJson(response, 200, videoBody(task));
  else if (fault.status === undefined) cutConnection(response);
  else sendGatewayError(response, voice, fault.status, defaultErrorForStatus(fault.status), { keepStatus: true });
}

/** `n` images (1 to 10, OpenAI's range for dall-e-2; 1 when absent). */
/** `n` of a generation's JSON, or of an edit's form (OpenAI's image edit is multipart/form-data). */
function imageCountOf(body: Buffer, contentType: string | undefined): number {
  const json = parseJsonBody(body);
  const formN = formParts(body, contentType)
    ?.find((part) => part.name === 'n' && part.filename === null)
    ?.value.toString('utf8');
  const count = json.ok ? json.value.n : formN === undefined ? undefined : Number(formN);
  return typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= 10 ? count : 1;
}

/** Image models echo the prompt they drew as `revised_prompt`, so a prompt can come back in the answer. */
function revisedPromptOf(body: Buffer): { revised_prompt?: string } {
  const json = parseJsonBody(body);
  return json.ok && typeof json.value.prompt === 'string' ? { revised_prompt: json.value.prompt } : {};
}

const ENCODERS: Readonly<Record<string, (text: string) => Buffer>> = {
  gzip: (text) => gzipSync(text),
  deflate: (text) => deflateSync(text),
  br: (text) => brotliCompressSync(text),
  zstd: (text) => zstdCompressSync(text),
};

/** The text compressed with `encoding`; as it is when there is none, or zlib has no such coding. */
function encoded(text: string, encoding: string | undefined): Buffer {
  const encode = encoding === undefined ? undefined : ENCODERS[encoding];
  return encode ? encode(text) : Buffer.from(text);
}
