import { routeKindOf } from '../core/clientPath.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import { resolveUpstreamModel } from '../routing/modelRouting.ts';
import type { ExchangePlan } from './plan.ts';
import { rewriteJsonBody, streamFlagOf, modelOf, type ClientBody, type ParsedBody } from './requestBody.ts';
import type { ClientIdentity, LocalRefusal, UpstreamTarget } from './services.ts';
import { answerCountTokens, chooseMode, translateAnthropic, translateResponses, type TranslationResult } from './translationPlans.ts';

/** Whether the capability check has shown that the gateway speaks this protocol natively for a model. */
export type NativeProtocolCheck = (profileId: string, protocol: 'messages' | 'responses', upstreamModel: string) => boolean;

export interface PlanInput {
  method: string;
  path: string;
  query: string;
  protocol: ClientProtocol;
  body: ClientBody;
  parsed: ParsedBody;
  identity: ClientIdentity;
  target: UpstreamTarget;
  nativeVerified?: NativeProtocolCheck;
}

export interface PlanRefusal {
  refusal: LocalRefusal;
}

/** `localAnswer`: answered by Airlock itself, nothing sent upstream (Anthropic `count_tokens`). */
export type Plan = (ExchangePlan & { localAnswer?: Promise<object> }) | PlanRefusal;

function invalid(message: string): PlanRefusal {
  return { refusal: { status: 400, errorClass: 'invalid_request', message: `${message}. Nothing was sent to the gateway; fix the request and retry.` } };
}

/** Decides how one request reaches the gateway: path, model id, body bytes, and translation. */
export function buildPlan(input: PlanInput): Plan {
  const { parsed, target } = input;
  if (parsed.kind === 'invalid') return invalid(parsed.message);
  const requestedModel = modelOf(parsed);
  const { upstreamModel } = resolveUpstreamModel({
    requestedModel,
    aliases: target.profile.modelAliases,
    routes: target.profile.modelRoutes,
    clientDefaultModel: input.identity.defaultModel ?? null,
  });
  const kind = routeKindOf(input.path, input.method);
  if (kind === 'messages' || kind === 'count_tokens' || kind === 'responses') {
    const protocolKey = kind === 'responses' ? 'responses' : 'messages';
    const nativeVerified = upstreamModel !== null && (input.nativeVerified?.(target.profile.id, protocolKey, upstreamModel) ?? false);
    if (chooseMode(target.profile.protocolModes[protocolKey], nativeVerified) === 'translate') {
      return translatedPlan(input, kind, requestedModel, upstreamModel);
    }
  }
  const isChat = kind === 'chat';
  const rewritten = rewriteJsonBody(input.body, parsed, upstreamModel, isChat);
  return {
    protocol: input.protocol,
    mode: 'native',
    method: input.method,
    upstreamPath: input.path,
    query: input.query,
    body: input.body.byteLength === 0 && rewritten.byteLength === 0 ? null : rewritten.chunks,
    byteLength: rewritten.byteLength,
    stream: streamFlagOf(parsed),
    requestedModel,
    upstreamModel,
    usageInjected: rewritten.usageInjected,
    chatBody: isChat && parsed.kind === 'json' ? parsed.value : null,
    dropAnthropicHeaders: false,
    translator: null,
    notes: [],
  };
}

function translatedPlan(input: PlanInput, kind: 'messages' | 'count_tokens' | 'responses', requestedModel: string | null, upstreamModel: string | null): Plan {
  const { parsed } = input;
  if (parsed.kind !== 'json') return invalid('the request body must be a JSON object of the client protocol');
  const base = {
    protocol: input.protocol,
    mode: 'translate' as const,
    method: input.method,
    query: '',
    requestedModel,
    upstreamModel,
    usageInjected: true,
    dropAnthropicHeaders: true,
  };
  if (kind === 'count_tokens') {
    return { ...base, upstreamPath: input.path, body: null, byteLength: 0, stream: false, chatBody: null, translator: null, notes: [], localAnswer: answerCountTokens(input.body) };
  }
  if (upstreamModel === null || requestedModel === null) return invalid('the request names no model');
  const result: TranslationResult =
    kind === 'messages' ? translateAnthropic(parsed.value, requestedModel, upstreamModel) : translateResponses(parsed.value, requestedModel, upstreamModel);
  if (!result.ok) return invalid(result.message);
  const { translation } = result;
  const bytes = Buffer.from(JSON.stringify(translation.chatBody));
  return {
    ...base,
    upstreamPath: 'chat/completions',
    body: [bytes],
    byteLength: bytes.length,
    stream: translation.stream,
    chatBody: translation.chatBody,
    translator: translation.translator,
    notes: translation.notes,
  };
}
