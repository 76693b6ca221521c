import type { ClientProtocol } from '../contracts/usage.ts';
import { resolveUpstreamModel } from '../routing/modelRouting.ts';
import type { ExchangePlan } from './plan.ts';
import { rewriteJsonBody, streamFlagOf, modelOf, type ClientBody, type ParsedBody } from './requestBody.ts';
import type { ClientIdentity, LocalRefusal, UpstreamTarget } from './services.ts';

export interface PlanInput {
  method: string;
  path: string;
  query: string;
  protocol: ClientProtocol;
  body: ClientBody;
  parsed: ParsedBody;
  identity: ClientIdentity;
  target: UpstreamTarget;
}

export interface PlanRefusal {
  refusal: LocalRefusal;
}

export type Plan = (ExchangePlan & { localAnswer?: object }) | PlanRefusal;

/** Decides how one request reaches the gateway: path, model id, body bytes, and translation. */
export function buildPlan(input: PlanInput): Plan {
  const { parsed, target } = input;
  if (parsed.kind === 'invalid') {
    return {
      refusal: {
        status: 400,
        errorClass: 'invalid_request',
        message: `${parsed.message}. Nothing was sent to the gateway; fix the request body and retry.`,
      },
    };
  }
  const requestedModel = modelOf(parsed);
  const { upstreamModel } = resolveUpstreamModel({
    requestedModel,
    aliases: target.profile.modelAliases,
    routes: target.profile.modelRoutes,
    clientDefaultModel: input.identity.defaultModel ?? null,
  });
  const isChat = input.path === 'chat/completions';
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
  };
}
