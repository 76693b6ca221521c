import { isRecord } from '../core/isRecord.ts';
import { MAX_COMPLETION_TOKENS_KEY_JSON } from '../protocols/chat/maxTokens.ts';
import type { ByteRange, TopLevelScan } from './jsonScan.ts';
import type { ClientBody, ParsedBody } from './requestBody.ts';

export interface RewrittenBody {
  chunks: Buffer[];
  byteLength: number;
  /** True when Airlock added `stream_options.include_usage`; the client then never sees the usage chunk. */
  usageInjected: boolean;
  /** Whether the gateway is asked for a stream's usage, by the client or by Airlock. */
  usageAsked: boolean;
  /** What was changed, in the client's byte offsets, first to last: the rest of the bytes are the client's. */
  edits: readonly BodyEdit[];
  /** Set when `max_tokens` was renamed `max_completion_tokens`. */
  maxTokensRenamed?: true;
}

/** Bytes [start, end) of the client's body replaced by `text` (an insertion when start = end). */
export interface BodyEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * A `stream_options` value past this size (whitespace included) is not read on the forwarding
 * loop: real ones hold one or two flags. It is left as it is, and usage is not asked for.
 */
const MAX_STREAM_OPTIONS_BYTES = 4 * 1024;

/** A `stream_options` value that is too large or not valid JSON: left as it is. */
const UNREADABLE = Symbol('unreadable');

/**
 * Sets the gateway's model id and, for streams, asks for usage, by splicing those members into
 * the client's bytes: everything else goes out exactly as the client wrote it (numbers past 2^53,
 * escapes, key order, duplicates), and a large body is never serialised again on the forwarding
 * loop, which cost twice its parse (about 1 ms for a 200 KB agent turn). `renameMaxTokens`: the
 * gateway refuses chat's `max_tokens` for this model, so a body that bounds its output so (and not
 * also by the other name) has the key renamed `max_completion_tokens` (protocols/chat/maxTokens.ts).
 */
export function rewriteJsonBody(
  body: ClientBody,
  parsed: ParsedBody,
  upstreamModel: string | null,
  wantUsage: boolean,
  renameMaxTokens = false,
): RewrittenBody {
  const unchanged = { chunks: body.chunks, byteLength: body.byteLength, usageInjected: false, usageAsked: false, edits: [] };
  const scan = body.scan;
  if (scan === null || (parsed.kind !== 'json' && parsed.kind !== 'scanned-json')) return unchanged;
  // A scanned body cut short is no JSON the gateway can read: it goes as it came, and the gateway's error says why.
  if (parsed.kind === 'scanned-json' && !scan.closed) return unchanged;
  const fields =
    parsed.kind === 'json'
      ? { model: parsed.value.model, stream: parsed.value.stream === true, options: parsed.value.stream_options }
      : { model: scan.model, stream: scan.stream === true, options: streamOptionsOf(body.chunks, scan.streamOptionsValue) };
  const { options } = fields;
  const clientAskedUsage = wantUsage && isRecord(options) && options.include_usage === true;
  const injectUsage = wantUsage && fields.stream && !clientAskedUsage && options !== UNREADABLE;
  const modelChanges = upstreamModel !== null && fields.model !== upstreamModel;
  const maxTokensKey = renameMaxTokens ? renamableMaxTokensKey(scan) : null;
  // Most bodies need no edit: they go as they came, with nothing built for them.
  if (!modelChanges && !injectUsage && maxTokensKey === null) return clientAskedUsage ? { ...unchanged, usageAsked: true } : unchanged;
  const members = new MemberEdits(scan);
  if (modelChanges) members.set('model', scan.modelValue, upstreamModel);
  if (injectUsage) members.set('stream_options', scan.streamOptionsValue, { ...(isRecord(options) ? options : {}), include_usage: true });
  if (maxTokensKey !== null) members.replace(maxTokensKey, MAX_COMPLETION_TOKENS_KEY_JSON);
  const rewritten = {
    ...members.applyTo(body.chunks, body.byteLength),
    usageInjected: injectUsage,
    usageAsked: injectUsage || clientAskedUsage,
  };
  return maxTokensKey === null ? rewritten : { ...rewritten, maxTokensRenamed: true };
}

/**
 * The body's top-level `max_tokens` key, unless it also names `max_completion_tokens`, whatever its
 * value: renamed, the body would name it twice, and a parser taking the last (a null, say) would lose the bound.
 */
export function renamableMaxTokensKey(scan: TopLevelScan): ByteRange | null {
  return scan.namesMaxCompletionTokens ? null : scan.maxTokensKey;
}

/** The client's `stream_options`, parsed from its bytes alone; undefined when the body has none. */
function streamOptionsOf(chunks: readonly Buffer[], range: ByteRange | null): unknown {
  if (range === null) return undefined;
  if (range.end - range.start > MAX_STREAM_OPTIONS_BYTES) return UNREADABLE;
  try {
    return JSON.parse(bytesIn(chunks, range).toString('utf8')) as unknown;
  } catch {
    return UNREADABLE;
  }
}

/** Bytes [start, end) of the chunks taken as one body (a copy only when they span chunks). */
export function bytesIn(chunks: readonly Buffer[], range: ByteRange): Buffer {
  const pieces = piecesIn(chunks, range);
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}

/** The same bytes as views of the chunks they lie in, uncopied (a hash can take them one by one). */
export function piecesIn(chunks: readonly Buffer[], range: ByteRange): Buffer[] {
  const pieces: Buffer[] = [];
  let offset = 0;
  for (const chunk of chunks) {
    const chunkEnd = offset + chunk.length;
    if (chunkEnd > range.start && offset < range.end)
      pieces.push(chunk.subarray(Math.max(0, range.start - offset), Math.min(chunk.length, range.end - offset)));
    offset = chunkEnd;
  }
  return pieces;
}

/** Top-level members to set: a member the body has gets its value replaced, a missing one is added after the `{`. */
class MemberEdits {
  private readonly scan: TopLevelScan;
  private readonly replaced: { range: ByteRange; json: string }[] = [];
  private readonly added: string[] = [];

  constructor(scan: TopLevelScan) {
    this.scan = scan;
  }

  set(key: string, current: ByteRange | null, value: unknown): void {
    if (current === null) this.added.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
    else this.replace(current, JSON.stringify(value));
  }

  /** The bytes of `range` (a value, or a key up to its colon) become `json`. */
  replace(range: ByteRange, json: string): void {
    this.replaced.push({ range, json });
  }

  /** Splices from the end backwards, so each edit's offsets still hold when it is made. */
  applyTo(chunks: Buffer[], byteLength: number): { chunks: Buffer[]; byteLength: number; edits: BodyEdit[] } {
    const edits: BodyEdit[] = this.replaced.map(({ range, json }) => ({ ...range, text: json }));
    if (this.added.length > 0) {
      const at = this.scan.objectStart + 1;
      edits.push({ start: at, end: at, text: this.added.join(',') + (this.scan.hasMembers ? ',' : '') });
    }
    edits.sort((a, b) => b.start - a.start);
    let out = chunks;
    let length = byteLength;
    for (const edit of edits) {
      const replacement = Buffer.from(edit.text);
      out = spliceChunks(out, edit.start, edit.end, replacement);
      length += replacement.length - (edit.end - edit.start);
    }
    return { chunks: out, byteLength: length, edits: edits.reverse() };
  }
}

/** Replaces bytes [start, end) of a chunked buffer without copying the untouched chunks. */
export function spliceChunks(chunks: readonly Buffer[], start: number, end: number, replacement: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let offset = 0;
  let inserted = false;
  const insert = (): void => {
    if (!inserted) out.push(replacement);
    inserted = true;
  };
  for (const chunk of chunks) {
    const chunkEnd = offset + chunk.length;
    if (chunkEnd <= start) out.push(chunk);
    else if (offset >= end) {
      insert();
      out.push(chunk);
    } else {
      if (start > offset) out.push(chunk.subarray(0, start - offset));
      insert();
      if (end < chunkEnd) out.push(chunk.subarray(end - offset));
    }
    offset = chunkEnd;
  }
  insert();
  return out;
}
