import type { PlanInput } from './planner.ts';
import type { Admitted } from './stageRecords.ts';
import { isChatCompletion, routeFor } from '../protocols/registry.ts';
import { idempotencyKeyOf } from '../spend/idempotencyRequest.ts';
import type { ArrivingBody } from './arrivingBody.ts';
import type { ExchangePlan } from './plan.ts';
import type { ClientBody, ParsedBody } from './requestBody.ts';

/**
 * Whether a large body may go upstream while it arrives: only when what planning reads of it is in
 * the bytes seen so far. The model (aliases splice it), and for Chat Completions `stream` and, on a
 * stream, `stream_options` (the usage splice); elsewhere `stream`, unless the endpoint never
 * streams. Left to the whole read: a protocol Airlock may
 * translate, or cleans of its own thinking wherever it lies (Anthropic Messages, Responses); a
 * request a budget cap holds (its output bound may come later); a keyed creation (its key's
 * record hashes the whole body).
 */
export function mayForwardEarly(
  check: Pick<Admitted, 'req' | 'method' | 'path' | 'identity' | 'target'>,
  needsInputEstimate: PlanInput['needsInputEstimate'],
  sofar: ClientBody,
): boolean {
  const scan = sofar.scan;
  // A repeated member, or one in another case, is refused once the body is whole (parseClientBody), never sent on.
  if (
    scan === null ||
    !scan.isObject ||
    scan.tooDeep ||
    scan.model === null ||
    scan.repeatedMember !== null ||
    scan.memberInAnotherCase !== null
  )
    return false;
  if (check.method !== 'POST' || idempotencyKeyOf(check.req.headers) !== null) return false;
  const route = routeFor(check.path, check.method);
  if (route.adapter.translation) return false;
  if (needsInputEstimate?.(check.identity, check.target.profile) ?? false) return false;
  if (isChatCompletion(route)) return scan.stream !== null && !(scan.stream && scan.streamOptionsValue === null);
  // Elsewhere a `stream` the start did not show may still come (legacy completions put it after the prompt): only endpoints that never stream go on without it.
  return scan.stream !== null || WHOLE_ANSWER_PATH.test(check.path);
}

/** Endpoints with no streamed form (OpenAI's embeddings and moderations), an Azure deployment's included. */
const WHOLE_ANSWER_PATH = /(?:^|\/)(?:embeddings|moderations)$/;

/**
 * What planning is given for a body still arriving: the bytes so far, and the scan as it stands,
 * taken as closed, since the members it reads are settled (the arriving body refuses an end that
 * contradicts them). Copies, as the read goes on filling both; `chunkCount` is how many of the
 * client's chunks the plan covers (planning may replace the copy's chunks with views).
 */
export function plannedSoFar(body: ClientBody): { body: ClientBody; parsed: ParsedBody; chunkCount: number } {
  // Its `max_tokens` is not renamed (bodyRewrite.ts): a `max_completion_tokens` may still come, and the body would name it twice.
  const scan = { ...body.scan!, numbers: { ...body.scan!.numbers }, closed: true, maxTokensKey: null };
  return {
    body: { chunks: [...body.chunks], byteLength: body.byteLength, scan },
    parsed: { kind: 'scanned-json', scan },
    chunkCount: body.chunks.length,
  };
}

/** The plan made from the first bytes, sending the rest as it comes: its length is the whole body's. */
export function arrivingPlan(plan: ExchangePlan, sofar: ReturnType<typeof plannedSoFar>, arriving: ArrivingBody): ExchangePlan {
  arriving.planned(plan.body ?? [], sofar.chunkCount, sofar.body.scan!);
  return { ...plan, byteLength: plan.byteLength + (arriving.declaredBytes - sofar.body.byteLength), arriving };
}
