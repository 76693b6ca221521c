/**
 * Finds the top-level `model` (string) and `stream` (boolean) of a JSON object held as chunks,
 * without materialising it: used for bodies too large to parse cheaply. Offsets are absolute
 * byte positions of the model string's contents (between its quotes), for splicing an alias.
 */
export interface TopLevelScan {
  model: string | null;
  modelStart: number;
  modelEnd: number;
  stream: boolean | null;
  hasStreamOptions: boolean;
  isObject: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_KEY_BYTES = 64;

export function scanTopLevel(chunks: readonly Uint8Array[]): TopLevelScan {
  const result: TopLevelScan = { model: null, modelStart: -1, modelEnd: -1, stream: null, hasStreamOptions: false, isObject: false };
  let depth = 0;
  let inString = false;
  let escaped = false;
  let stringStart = 0;
  let stringBytes: number[] | null = null;
  let lastKey: string | null = null;
  let expectingKey = false;
  let afterColonKey: string | null = null;
  let literal = '';
  let offset = 0;
  let seenFirst = false;
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i]!;
      const position = offset + i;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          if (stringBytes) {
            const raw: string = Buffer.from(stringBytes).toString('utf8');
            const text: string = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
            if (expectingKey) lastKey = text;
            else if (afterColonKey === 'model') {
              result.model = text;
              result.modelStart = stringStart;
              result.modelEnd = position;
            }
          }
          stringBytes = null;
          continue;
        }
        if (stringBytes && (expectingKey ? stringBytes.length < MAX_KEY_BYTES : afterColonKey === 'model')) stringBytes.push(byte);
        continue;
      }
      if (!seenFirst && byte > 0x20) {
        seenFirst = true;
        result.isObject = byte === 0x7b;
        if (!result.isObject) return result;
      }
      if (depth === 1 && afterColonKey === 'stream' && byte > 0x20 && byte !== 0x3a) {
        if (byte === 0x2c || byte === 0x7d) {
          result.stream = literal === 'true' ? true : literal === 'false' ? false : null;
          afterColonKey = null;
          literal = '';
        } else {
          literal += String.fromCharCode(byte);
          continue;
        }
      }
      switch (byte) {
        case QUOTE:
          inString = true;
          stringStart = position + 1;
          stringBytes = depth === 1 && (expectingKey || afterColonKey === 'model') ? [] : null;
          break;
        case 0x7b:
        case 0x5b:
          depth += 1;
          if (depth === 1 && byte === 0x7b) expectingKey = true;
          break;
        case 0x7d:
        case 0x5d:
          depth -= 1;
          break;
        case 0x3a:
          if (depth === 1 && expectingKey) {
            expectingKey = false;
            afterColonKey = lastKey;
            if (lastKey === 'stream_options') result.hasStreamOptions = true;
          }
          break;
        case 0x2c:
          if (depth === 1) {
            expectingKey = true;
            afterColonKey = null;
          }
          break;
        default:
          break;
      }
    }
    offset += chunk.length;
  }
  return result;
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
