import { bytesIn, spliceChunks } from './bodyRewrite.ts';
import type { ByteRange } from './jsonScan.ts';
import { offsetsInChunks } from '../core/chunkSearch.ts';
import { BILLED_UNIT_FIELDS } from '../protocols/passthrough/billedUnits.ts';

/**
 * What Airlock reads of a multipart/form-data body (RFC 7578: audio transcriptions and translations,
 * image edits, file uploads): the `model` and `stream` fields, which say what the request asks of
 * which model, and what each part is, for the log. Files are never read, only measured: the body
 * stays the client's chunks, and only the delimiters are searched for (a native search per chunk).
 */
export interface FormFields {
  model: string | null;
  /** Where the model's value lies in the body, so an alias can replace it. */
  modelValue: ByteRange | null;
  stream: boolean;
  /** The form's short numeric fields a budget reads (`n`: images an edit asks for), by name. */
  numbers: Record<string, number>;
  /**
   * The first of the fields read here (model, stream, n, a video's seconds) that the form holds twice: servers differ
   * on which counts (Go's FormValue and Werkzeug's MultiDict take the first, Django's
   * MultiValueDict the last), so such a form is refused (requestBody.ts).
   */
  repeatedField: string | null;
  parts: FormPartSummary[];
  /** More parts than MAX_PARTS: those past it were not read, so a field absent here may be among them. */
  partsUnread: boolean;
}

interface FormPartSummary {
  name: string;
  /** A file part's name; null for a field. */
  filename: string | null;
  contentType: string | null;
  byteLength: number;
  /** Where the part's bytes lie in the body (a file's head tells what it holds). */
  valueRange: ByteRange;
  /** A short field's value (a model, a format, a prompt's start); null for a file. */
  value: string | null;
}

const FORM_CONTENT_TYPE = /^\s*multipart\/form-data\s*;/i;
const BOUNDARY = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i;
/** A part's headers are a line or three: past this the body is not a form Airlock reads. */
const MAX_PART_HEADER_BYTES = 2048;
/** Field values kept for the log and read for the model: longer ones (a long prompt) are cut. */
const MAX_FIELD_VALUE_BYTES = 256;
/** Fields read as numbers: `n`, the images an edit or variation asks for, each billed. */
const NUMERIC_FIELDS: ReadonlySet<string> = new Set(['n']);
/**
 * The fields whose value Airlock reads: a second one is refused. A video's `seconds` among them: read
 * first here and last by the gateway, "4" then "12" was counted as 4 seconds and billed as 12.
 */
const READ_FIELDS: ReadonlySet<string> = new Set(['model', 'stream', ...NUMERIC_FIELDS, ...BILLED_UNIT_FIELDS]);
/** More parts than any API takes; past it the form is not read further. */
const MAX_PARTS = 256;

/** The boundary a multipart/form-data content type declares; null for any other type. */
export function formBoundaryOf(contentType: string | undefined): string | null {
  if (contentType === undefined || !FORM_CONTENT_TYPE.test(contentType)) return null;
  const match = BOUNDARY.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

/** The form's fields; null when the body is not the form its content type says. */
export function readFormFields(chunks: readonly Buffer[], contentType: string | undefined): FormFields | null {
  const boundary = formBoundaryOf(contentType);
  if (boundary === null) return null;
  const delimiters = offsetsInChunks(chunks, Buffer.from(`--${boundary}`), MAX_PARTS + 1);
  // A form holds at least one part between two delimiters.
  if (delimiters.length < 2) return null;
  const fields: FormFields = {
    model: null,
    modelValue: null,
    stream: false,
    numbers: {},
    repeatedField: null,
    parts: [],
    partsUnread: delimiters.length > MAX_PARTS,
  };
  const delimiterLength = boundary.length + 2;
  for (let index = 0; index + 1 < delimiters.length; index += 1) {
    const headersStart = delimiters[index]! + delimiterLength + 2;
    // The part's bytes end before the CRLF that precedes the next delimiter.
    const partEnd = delimiters[index + 1]! - 2;
    const head = bytesIn(chunks, { start: headersStart, end: Math.min(partEnd, headersStart + MAX_PART_HEADER_BYTES) });
    const headersEnd = head.indexOf('\r\n\r\n');
    if (headersEnd === -1) return null;
    const headers = head.subarray(0, headersEnd).toString('utf8');
    const name = /;\s*name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) return null;
    const filename = /;\s*filename="([^"]*)"/i.exec(headers)?.[1] ?? null;
    const valueRange = { start: headersStart + headersEnd + 4, end: partEnd };
    const byteLength = valueRange.end - valueRange.start;
    const value =
      filename === null
        ? bytesIn(chunks, { start: valueRange.start, end: Math.min(valueRange.end, valueRange.start + MAX_FIELD_VALUE_BYTES) }).toString(
            'utf8',
          )
        : null;
    const contentType = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim() ?? null;
    if (READ_FIELDS.has(name) && fields.parts.some((part) => part.name === name)) fields.repeatedField ??= name;
    fields.parts.push({ name, filename, contentType, byteLength, valueRange, value });
    if (filename !== null || value === null) continue;
    if (name === 'model' && byteLength <= MAX_FIELD_VALUE_BYTES && fields.model === null) {
      fields.model = value;
      fields.modelValue = valueRange;
    }
    if (name === 'stream') fields.stream = value.trim().toLowerCase() === 'true';
    if (NUMERIC_FIELDS.has(name) && /^\s*\d+\s*$/.test(value)) fields.numbers[name] = Number(value);
  }
  return fields;
}

/**
 * The form with its model field set to `upstreamModel` (an alias or route resolved it): the value
 * is spliced into the client's chunks, every other byte of the form (its files) goes as it came.
 */
export function rewriteFormModel(
  chunks: Buffer[],
  byteLength: number,
  fields: FormFields,
  upstreamModel: string | null,
): { chunks: Buffer[]; byteLength: number } {
  const range = fields.modelValue;
  if (range === null || upstreamModel === null || upstreamModel === fields.model) return { chunks, byteLength };
  const replacement = Buffer.from(upstreamModel);
  return {
    chunks: spliceChunks(chunks, range.start, range.end, replacement),
    byteLength: byteLength + replacement.length - (range.end - range.start),
  };
}
