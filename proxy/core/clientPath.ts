/**
 * Maps the path a client asked for onto the gateway's base URL. Clients append /v1 themselves
 * (docs/gateway-spec.md §4.3), some twice, some not at all: `/v1/v1/x`, `/v1/x` and `/x` all mean `{base_url}/x`.
 * A client set up for Azure OpenAI sends `/openai/deployments/{deployment}/x` (its other calls
 * `/openai/x`, Azure's v1 API `/openai/v1/x`): that too means `{base_url}/x`, with the deployment as
 * the model, since the gateway speaks the OpenAI-compatible API and has no Azure paths under /v1.
 */
export interface UpstreamPath {
  /** Relative to the base URL, without a leading slash; '' for the base itself. */
  path: string;
  /** Verbatim from the request, with its '?', or ''. */
  query: string;
  /** The model the path names (an Azure deployment), which Azure runs whatever the body says; absent otherwise. */
  model?: string;
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
// Backslashes count as separators: URL parsers treat them as '/' for http(s), so a `..\` could climb.
const SEPARATORS = /[/\\]/;

/**
 * Clients send a handful of distinct targets, and every request normalises its target more than
 * once (the route kind is read from the normalised path twice), so results are remembered. The
 * bound keeps a client that varies its query from growing the table without limit.
 */
const MEMO_LIMIT_ENTRIES = 256;
const normalised = new Map<string, Readonly<UpstreamPath>>();

export function toUpstreamPath(requestTarget: string): Readonly<UpstreamPath> {
  let result = normalised.get(requestTarget);
  if (result === undefined) {
    if (normalised.size >= MEMO_LIMIT_ENTRIES) normalised.clear();
    result = Object.freeze(normaliseTarget(requestTarget));
    normalised.set(requestTarget, result);
  }
  return result;
}

function normaliseTarget(requestTarget: string): UpstreamPath {
  // An absolute-form target (`http://elsewhere/...`) must never choose the upstream: keep its path only.
  // Every request runs this, and origin-form targets (starting with '/') cannot match the pattern.
  const withoutOrigin = requestTarget.startsWith('/') ? requestTarget : requestTarget.replace(ABSOLUTE_FORM, '');
  const fragmentStart = withoutOrigin.indexOf('#');
  const target = fragmentStart === -1 ? withoutOrigin : withoutOrigin.slice(0, fragmentStart);
  const queryStart = target.indexOf('?');
  const rawPath = queryStart === -1 ? target : target.slice(0, queryStart);
  const query = queryStart === -1 || queryStart === target.length - 1 ? '' : target.slice(queryStart);

  const rawSegments = rawPath.includes('\\') ? rawPath.split(SEPARATORS) : rawPath.split('/');
  const segments = stripVersionPrefix(resolveDotSegments(rawSegments));
  if (segments[0] !== AZURE_API_ROOT) return { path: segments.join('/'), query };
  // `deployments/{name}` with an endpoint after it; `deployments` alone (Azure's own listing) stays a path.
  const deployment = segments[1] === 'deployments' && segments.length > 3 ? safeDecode(segments[2]!) : null;
  const endpoint = stripVersionPrefix(segments.slice(deployment === null ? 1 : 3));
  return deployment === null ? { path: endpoint.join('/'), query } : { path: endpoint.join('/'), query, model: deployment };
}

/** The segment Azure OpenAI clients put before every API path (`{endpoint}/openai`). */
const AZURE_API_ROOT = 'openai';

/** Empty segments collapse; `.` disappears; `..` pops, but never above the base. */
function resolveDotSegments(rawSegments: string[]): string[] {
  const resolved: string[] = [];
  for (const segment of rawSegments) {
    if (segment === '') continue;
    // Only a percent-encoded segment can differ from its decoded form; decoding is skipped otherwise.
    const decoded = segment.includes('%') ? safeDecode(segment) : segment;
    if (decoded === '.') continue;
    if (decoded === '..') {
      resolved.pop();
      continue;
    }
    // An encoded separator hiding a dot segment (`..%2F..`) could climb at a server that decodes it.
    if (decoded !== segment && decoded.split(SEPARATORS).some((part) => part === '..' || part === '.')) continue;
    resolved.push(segment);
  }
  return resolved;
}

function stripVersionPrefix(segments: string[]): string[] {
  let start = 0;
  while (start < segments.length && segments[start] === 'v1') start += 1;
  return segments.slice(start);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Normalises a path given either with or without leading slashes, /v1 and a query. */
function normalisedPath(path: string): string {
  return toUpstreamPath(path.startsWith('/') ? path : `/${path}`).path;
}

function pathSegments(path: string): string[] {
  const upstreamPath = normalisedPath(path);
  return upstreamPath === '' ? [] : upstreamPath.split('/');
}

const IMAGE_CREATION_ACTIONS = new Set(['generations', 'edits', 'variations']);

/**
 * A POST that reads a task's state, under a video or task path: SiliconFlow polls a video with
 * POST /video/status and its requestId (docs.siliconflow.cn api-reference get_videos_status). It
 * creates nothing, so a failed one is resent as any poll is.
 */
const POLL_ACTIONS = new Set(['status']);

/** Paid jobs whose POST to the collection starts one (OpenAI's Batch and fine-tuning APIs): a second is billed again. */
const JOB_COLLECTIONS = ['batches', 'fine_tuning/jobs'];

/**
 * Endpoints whose POST starts paid work that may run even when the client sees a failure
 * (docs/gateway-spec.md §3 and §7 rule 3): image and video generation, task-submission APIs of
 * relay gateways, and batch and fine-tuning jobs.
 */
export function isSideEffectCreationPath(path: string): boolean {
  const segments = pathSegments(path).map((segment) => segment.toLowerCase());
  if (JOB_COLLECTIONS.includes(segments.join('/'))) return true;
  if (POLL_ACTIONS.has(segments.at(-1) ?? '')) return false;
  return segments.some((segment, index) => {
    if (segment === 'images' || segment === 'image') return IMAGE_CREATION_ACTIONS.has(segments[index + 1] ?? '');
    return segment === 'video' || segment === 'videos' || segment === 'submit' || /2(video|image)$/.test(segment);
  });
}
