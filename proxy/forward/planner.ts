import { uploadAudioOf } from './audioDuration.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import { resolveUpstreamModel } from './modelRouting.ts';
import type { ExchangePlan } from './plan.ts';
import { rewriteJsonBody } from './bodyRewrite.ts';
import { sharedBody } from './sharedBody.ts';
import { rewriteFormModel } from './multipartForm.ts';
import { isJsonObject, mayBeJson, streamFlagOf, modelOf, upstreamContentType, type ClientBody, type ParsedBody } from './requestBody.ts';
import type { BilledUnits, ClientIdentity, LocalRefusal, UpstreamTarget } from '../contracts/ports.ts';
import { billedUnitsOf, statesBilledUnits } from '../protocols/passthrough/billedUnits.ts';
import type { Profile } from '../contracts/profile.ts';
import {
  NO_MODEL_REFUSALS,
  type ChatTranslation,
  type EndpointKind,
  type ModelRefusals,
  type NativeRequestCleanup,
  type ProtocolAdapter,
  type TranslatedProtocol,
} from '../protocols/adapter.ts';
import type { ClientToolNames } from '../protocols/requestResult.ts';
import { chooseMode } from '../protocols/protocolMode.ts';
import { gatewayTagOf } from '../protocols/chat/returnedReasoning.ts';
import { SENT_WITH_MAX_COMPLETION_TOKENS_NOTE } from '../protocols/chat/maxTokens.ts';
import { isChatCompletion, routeFor } from '../protocols/registry.ts';
import { answerCount } from './localAnswers.ts';
import { chatRequestFor, nativeBody } from './translation/translationJob.ts';
import { translationThread, TranslationUnavailableError, type TranslationThread } from './translation/translationThreadClient.ts';
import { offsetsInChunks } from '../core/chunkSearch.ts';
import { inputTokensUpperBound, TOKENIZE_LIMIT_CHARS } from '../spend/estimate.ts';

/** What the gateway refused of this profile's model's requests before (ReasoningEffortRefusals, MaxTokensRefusals). */
export type ModelRefusalsCheck = (profile: Profile, upstreamModel: string) => ModelRefusals;

/** Whether the capability check has shown that the gateway speaks this protocol natively for a model. */
export type NativeProtocolCheck = (profileId: string, protocol: TranslatedProtocol, upstreamModel: string) => boolean;

export interface PlanInput {
  method: string;
  path: string;
  query: string;
  /** The model the path names (an Azure deployment): it wins over the body's, as on Azure. */
  pathModel: string | null;
  protocol: ClientProtocol;
  body: ClientBody;
  parsed: ParsedBody;
  /** The client's Content-Type header. */
  contentType: string | undefined;
  identity: ClientIdentity;
  /** Only its profile: a plan never depends on the key (a held profile has none to send with). */
  target: Pick<UpstreamTarget, 'profile'>;
  nativeVerified?: NativeProtocolCheck;
  /** What the gateway refused of a model's requests before (reasoningEffortRefusals.ts, maxTokensRefusals.ts); nothing, unless given. */
  modelRefusals?: ModelRefusalsCheck;
  /** Where heavy bodies are translated; the process's shared thread unless given. */
  translation?: TranslationThread;
  /** A fallback step's model, routed through the target's aliases instead of the one the client named. */
  model?: string;
  /** Whether a cap of the client's or the profile's holds the input's estimate (SpendGate); none does, unless given. */
  needsInputEstimate?: (identity: ClientIdentity, profile: Profile) => boolean;
}

export interface PlanRefusal {
  refusal: LocalRefusal;
}

/**
 * `localAnswer`: answered by Airlock itself, nothing sent upstream (Anthropic `count_tokens`).
 * `clientChunks`: the client's bytes as views of the one buffer sent (sharedBody.ts), for the caller
 * to keep instead of its reads, so the body is held once; absent when there is no such buffer.
 */
export type Plan = (ExchangePlan & { localAnswer?: Promise<object>; clientChunks?: Buffer[] }) | PlanRefusal;

/** `unfixable`: no fixed retry can be served (protocols/requestResult.ts), so none is asked for. */
function invalid(message: string, unfixable = false): PlanRefusal {
  const ending = unfixable ? 'Nothing was sent to the gateway.' : 'Nothing was sent to the gateway; fix the request and retry.';
  return { refusal: { status: 400, errorClass: 'invalid_request', message: `${message}. ${ending}` } };
}

/** Longer is no media type a client sends: the rest is not repeated. */
const MAX_MEDIA_TYPE_CHARS = 100;

/**
 * Why a model API's body is refused. One declared as a type no JSON is read under was never read,
 * and may be a JSON object all the same: the type is what to change.
 */
function notJsonObjectMessage(parsed: ParsedBody, contentType: string | undefined): string {
  if (parsed.kind === 'empty') return 'the request body is empty: this API takes a JSON object';
  const mediaType = (contentType?.split(';')[0] ?? '').trim().slice(0, MAX_MEDIA_TYPE_CHARS);
  if (parsed.kind === 'opaque' && mediaType !== '' && !mayBeJson(contentType)) {
    return `the request body is declared as ${mediaType}: this API takes a JSON object, sent as application/json`;
  }
  return 'the request body is not a JSON object';
}

/**
 * Decides how one request reaches the gateway: path, model id, body bytes, and translation. Only a
 * heavy body in another protocol makes it wait (for the translation thread); the rest is decided
 * at once.
 */
export function buildPlan(input: PlanInput): Plan | Promise<Plan> {
  const { parsed, target } = input;
  if (parsed.kind === 'invalid') return invalid(parsed.message);
  const requestedModel = input.pathModel ?? modelOf(parsed);
  const routedFrom = input.model ?? requestedModel;
  const { upstreamModel } = resolveUpstreamModel({
    requestedModel: routedFrom,
    aliases: target.profile.modelAliases,
    routes: target.profile.modelRoutes,
    // Only a JSON body gets the default spliced in: a form, a file or a GET goes unchanged, so it is not that model's request.
    clientDefaultModel: isJsonObject(parsed) ? (input.identity.defaultModel ?? null) : null,
  });
  const route = routeFor(input.path, input.method);
  const { endpoint } = route;
  // A model API takes one JSON object: anything else the gateway would refuse, in words that name no cause.
  if (endpoint !== 'other' && !isJsonObject(parsed)) return invalid(notJsonObjectMessage(parsed, input.contentType));
  const translation = route.adapter.translation;
  if (translation) {
    const protocolKey = translation.modeKey;
    const nativeVerified = upstreamModel !== null && (input.nativeVerified?.(target.profile.id, protocolKey, upstreamModel) ?? false);
    if (chooseMode(target.profile.protocolModes[protocolKey], nativeVerified) === 'translate') {
      return translatedPlan(input, translation, endpoint, { requestedModel, upstreamModel, routedFrom }, route.adapter);
    }
  }
  const isChat = isChatCompletion(route);
  const limits = statedLimitsOf(parsed);
  // A count runs no model; a request passed through may still be a model's (a legacy completion): its adapter reads its limit.
  const outputTokensBound = endpoint !== 'count' && limits !== null ? route.adapter.outputTokenLimit(limits) : null;
  const callsBound = limits !== null ? (route.adapter.perCallCount?.(limits) ?? 1) : 1;
  const uploadAudio = parsed.kind === 'form' ? uploadAudioOf(input.body.chunks, parsed.fields) : null;
  const billedUnits = input.method === 'POST' && statesBilledUnits(input.path) ? billedUnitsIn(input.path, parsed) : null;
  const cleanup = route.adapter.nativeRequest;
  if (
    translation &&
    cleanup &&
    upstreamModel !== null &&
    cleanup.needles.some((needle) => offsetsInChunks(input.body.chunks, needle, 1).length > 0)
  ) {
    const models = { requestedModel, upstreamModel, routedFrom, outputTokensBound };
    const cleaned = nativeWithoutAirlockParts(input, translation.modeKey, cleanup, models);
    if (cleaned !== null) return cleaned;
  }
  const rewritten =
    parsed.kind === 'form'
      ? {
          ...rewriteFormModel(input.body.chunks, input.body.byteLength, parsed.fields, upstreamModel),
          usageInjected: false,
          usageAsked: false,
        }
      : rewriteJsonBody(input.body, parsed, upstreamModel, isChat, isChat && maxTokensRefused(input, upstreamModel));
  const contentType = upstreamContentType(parsed, input.contentType);
  const shared = 'edits' in rewritten ? sharedBody(input.body.chunks, rewritten.chunks, rewritten.byteLength, rewritten.edits) : null;
  return {
    protocol: input.protocol,
    mode: 'native',
    method: input.method,
    upstreamPath: input.path,
    query: input.query,
    body: input.body.byteLength === 0 && rewritten.byteLength === 0 ? null : shared === null ? rewritten.chunks : [shared.sent],
    byteLength: rewritten.byteLength,
    textBody: isJsonObject(parsed),
    stream: streamFlagOf(parsed),
    requestedModel,
    upstreamModel,
    routedFrom,
    usageInjected: rewritten.usageInjected,
    usageAsked: rewritten.usageAsked,
    chatJson: isChat && parsed.kind === 'json',
    inputTokensBound: isChat && parsed.kind === 'json' ? inputBoundFor(input, parsed.value, rewritten.byteLength) : null,
    outputTokensBound,
    callsBound,
    uploadAudio,
    billedUnits,
    contentType,
    droppedHeaderPrefixes: [],
    translator: null,
    notes: nativeNotes(input.contentType, contentType, 'maxTokensRenamed' in rewritten),
    clientChunks: shared?.client,
  };
}

/**
 * The units a parsed JSON body or form states; a body too large to parse here states none Airlock can
 * read, nor does a form with parts left unread (its seconds may be among them, not the default).
 */
function billedUnitsIn(path: string, parsed: ParsedBody): BilledUnits | null {
  if (parsed.kind === 'json') return billedUnitsOf(path, (name) => parsed.value[name]);
  if (parsed.kind !== 'form' || parsed.fields.partsUnread) return null;
  return billedUnitsOf(
    path,
    (name) => parsed.fields.parts.find((part) => part.name === name && part.filename === null)?.value ?? undefined,
  );
}

/**
 * Whether the gateway refused `max_tokens` for this model before (maxTokensRefusals.ts): asked only
 * of a body that holds the key, so a request without it looks nothing up.
 */
function maxTokensRefused(input: PlanInput, upstreamModel: string | null): boolean {
  if (upstreamModel === null || input.body.scan?.maxTokensKey == null || input.modelRefusals === undefined) return false;
  return input.modelRefusals(input.target.profile, upstreamModel).maxTokensRefused;
}

/** What the log says Airlock changed in a request it otherwise sends as the client wrote it. */
function nativeNotes(clientContentType: string | undefined, sentContentType: string | null, maxTokensRenamed: boolean): string[] {
  const notes: string[] = [];
  if (sentContentType !== null)
    notes.push(`a JSON body sent as ${clientContentType ?? 'no content type'}: read as JSON and sent as ${sentContentType}`);
  if (maxTokensRenamed) notes.push(SENT_WITH_MAX_COMPLETION_TOKENS_NOTE);
  return notes;
}

/**
 * A native request whose session was translated before (the capability probe found the gateway
 * speaks the protocol since): the thinking Airlock made then is left out (NativeRequestCleanup).
 * Null when the body holds none after all: it goes as it came.
 */
function nativeWithoutAirlockParts(
  input: PlanInput,
  protocol: TranslatedProtocol,
  cleanup: NativeRequestCleanup,
  models: { requestedModel: string | null; upstreamModel: string; routedFrom: string | null; outputTokensBound: number | null },
): Plan | Promise<Plan> | null {
  const { parsed } = input;
  const { requestedModel, upstreamModel, routedFrom, outputTokensBound } = models;
  const planned = (bytes: Buffer, stream: boolean, notes: string[]): Plan => ({
    protocol: input.protocol,
    mode: 'native',
    method: input.method,
    upstreamPath: input.path,
    query: input.query,
    body: [bytes],
    byteLength: bytes.length,
    textBody: true,
    stream,
    requestedModel,
    upstreamModel,
    routedFrom,
    usageInjected: false,
    usageAsked: false,
    chatJson: false,
    inputTokensBound: null,
    outputTokensBound,
    callsBound: 1,
    uploadAudio: null,
    billedUnits: null,
    contentType: upstreamContentType(parsed, input.contentType),
    droppedHeaderPrefixes: [],
    translator: null,
    notes,
  });
  if (parsed.kind === 'json') {
    if (cleanup.clean(parsed.value) === null) return null;
    const sent = nativeBody(protocol, parsed.value, upstreamModel);
    return sent.ok ? planned(sent.sentJson, sent.stream, sent.notes) : invalid(sent.message);
  }
  if (parsed.kind !== 'scanned-json') return null;
  // A heavy body is read off the forwarding loop, as a translated one is.
  const { chunks, byteLength } = input.body;
  return (input.translation ?? translationThread).translate(protocol, chunks, byteLength, upstreamModel, { native: true }).then(
    (sent) => (sent.ok ? planned(sent.sentJson, sent.stream, sent.notes) : invalid(sent.message)),
    (error: unknown) => {
      if (error instanceof TranslationUnavailableError) return translationUnavailable(error.message);
      throw error;
    },
  );
}

/**
 * The input's upper bound, for a cap to hold, from the body while it is parsed: worked out only when
 * a cap needs it (most requests never do), and where the tokenizer would count the body (accounting.ts).
 */
function inputBoundFor(input: PlanInput, chatBody: Record<string, unknown>, byteLength: number): number | null {
  if (byteLength > TOKENIZE_LIMIT_CHARS || !(input.needsInputEstimate?.(input.identity, input.target.profile) ?? false)) return null;
  return inputTokensUpperBound(chatBody);
}

function translatedPlan(
  input: PlanInput,
  translation: ChatTranslation,
  endpoint: EndpointKind,
  models: { requestedModel: string | null; upstreamModel: string | null; routedFrom: string | null },
  clientAdapter: ProtocolAdapter,
): Plan | Promise<Plan> {
  const { parsed, target } = input;
  const { requestedModel, upstreamModel, routedFrom } = models;
  if (!isJsonObject(parsed)) return invalid('the request body must be a JSON object of the client protocol');
  const limits = statedLimitsOf(parsed);
  const base = {
    protocol: input.protocol,
    mode: 'translate' as const,
    method: input.method,
    query: '',
    requestedModel,
    upstreamModel,
    routedFrom,
    usageInjected: true,
    usageAsked: true,
    contentType: upstreamContentType(parsed, input.contentType),
    droppedHeaderPrefixes: translation.clientHeaderPrefixes,
    // The client's limit, as the translation carries it to chat's; a body too large to parse here states it in its scan.
    outputTokensBound: endpoint === 'generate' && limits !== null ? clientAdapter.outputTokenLimit(limits) : null,
    callsBound: 1,
    uploadAudio: null,
    billedUnits: null,
  };
  if (endpoint === 'count') {
    if (!translation.countAnswer) return invalid('Airlock cannot count tokens for this protocol without the gateway');
    return {
      ...base,
      upstreamPath: input.path,
      body: null,
      byteLength: 0,
      textBody: false,
      stream: false,
      chatJson: false,
      inputTokensBound: null,
      translator: null,
      notes: [],
      localAnswer: answerCount(input.body, translation.countAnswer),
    };
  }
  if (upstreamModel === null || requestedModel === null) return invalid('the request names no model');
  const protocol = translation.modeKey;
  // Thinking a translated client hands back goes only to the gateway it came from (returnedReasoning.ts), a relay's
  // signed blocks only to the model too (relayThinking.ts): a fallback step's may refuse it.
  const gatewayTag = gatewayTagOf(target.profile.baseUrl);
  const planned = (
    bytes: Buffer,
    stream: boolean,
    notes: string[],
    chatBody: Record<string, unknown> | null,
    clientToolNames: ClientToolNames = {},
  ): Plan => ({
    ...base,
    upstreamPath: 'chat/completions',
    body: [bytes],
    byteLength: bytes.length,
    textBody: true,
    stream,
    chatJson: chatBody !== null,
    inputTokensBound: chatBody === null ? null : inputBoundFor(input, chatBody, bytes.length),
    translator: translation.responseTranslator(requestedModel, clientToolNames, { gatewayTag, upstreamModel }),
    notes,
  });
  const refusals = input.modelRefusals?.(target.profile, upstreamModel) ?? NO_MODEL_REFUSALS;
  if (parsed.kind === 'json') {
    const request = chatRequestFor(protocol, parsed.value, upstreamModel, refusals, gatewayTag);
    if (!request.ok) return invalid(request.message, request.unfixable);
    return planned(Buffer.from(JSON.stringify(request.chatBody)), request.stream, request.notes, request.chatBody, request.clientToolNames);
  }
  // Parsed, translated and serialized off the forwarding loop; the budget then goes by its bytes.
  const thread = input.translation ?? translationThread;
  return thread.translate(protocol, input.body.chunks, input.body.byteLength, upstreamModel, { refusals, gatewayTag }).then(
    (translated) =>
      translated.ok
        ? planned(translated.sentJson, translated.stream, translated.notes, null, translated.clientToolNames)
        : invalid(translated.message, translated.unfixable),
    (error: unknown) => {
      if (error instanceof TranslationUnavailableError) return translationUnavailable(error.message);
      throw error;
    },
  );
}

/**
 * The members an output limit or a per-call count is read from: the parsed body; for a body too
 * large to parse on the loop (a long agent session), the top-level numbers its scan read, so its
 * stated limit is held against caps as a small body's is; for a form (an image edit), its `n`.
 */
function statedLimitsOf(parsed: ParsedBody): Record<string, unknown> | null {
  if (parsed.kind === 'json') return parsed.value;
  if (parsed.kind === 'form') return parsed.fields.numbers;
  return parsed.kind === 'scanned-json' ? parsed.scan.numbers : null;
}

function translationUnavailable(reason: string): PlanRefusal {
  return {
    refusal: {
      status: 503,
      errorClass: 'translation_unavailable',
      message:
        `Airlock could not translate this request to Chat Completions: ${reason}. Nothing was sent to the gateway. ` +
        'Restart Airlock (its output says why the thread failed), or send a smaller request.',
    },
  };
}
