import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Reading an SQLite database file and its write-ahead log by hand, following SQLite's published
 * file format (sqlite.org/fileformat2.html). node:sqlite has no `.recover`: when SQLite refuses
 * a damaged log, the rows that matter (spend, keyed creations) are read from the pages directly.
 */

export type FileValue = null | number | bigint | string | Uint8Array;
/** A record's fields; `undefined` where the field lies in a part of the record that could not be read. */
export type RecordFields = Array<FileValue | undefined>;

const HEADER_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
export const DB_HEADER_BYTES = 100;
export const APPLICATION_ID_OFFSET = 68;
/** PRAGMA user_version, the log's schema (schema.ts). */
const USER_VERSION_OFFSET = 60;
const WAL_HEADER_BYTES = 32;
const WAL_FRAME_HEADER_BYTES = 24;
const WAL_MAGIC_LITTLE_ENDIAN = 0x377f0682;
const WAL_MAGIC_BIG_ENDIAN = 0x377f0683;
const WAL_FORMAT_VERSION = 3007000;
const TABLE_LEAF_PAGE = 0x0d;
const MIN_PAGE_BYTES = 512;
const MAX_PAGE_BYTES = 65536;

export interface DbHeader {
  pageSizeBytes: number;
  /** Bytes at the end of each page that b-trees do not use. */
  reservedBytes: number;
  /** The page count the header states, or null where SQLite would not trust it. */
  pageCount: number | null;
  /** PRAGMA application_id: Airlock gives each log a random one (schema.ts). */
  applicationId: number;
  /** PRAGMA user_version: the schema of the log that wrote it (a newer Airlock's is above SCHEMA_VERSION). */
  userVersion: number;
}

function pageSizeOf(raw: number): number | null {
  const size = raw === 1 ? MAX_PAGE_BYTES : raw;
  return size >= MIN_PAGE_BYTES && size <= MAX_PAGE_BYTES && (size & (size - 1)) === 0 ? size : null;
}

/** The database header's fields, or why these bytes are no SQLite header. */
export function parseDbHeader(bytes: Buffer): DbHeader | { problem: string } {
  if (bytes.length < DB_HEADER_BYTES) return { problem: `it is ${bytes.length} bytes long, shorter than an SQLite header` };
  if (!bytes.subarray(0, HEADER_MAGIC.length).equals(HEADER_MAGIC))
    return { problem: 'its first bytes are not an SQLite header (the file was overwritten)' };
  const pageSizeBytes = pageSizeOf(bytes.readUInt16BE(16));
  if (pageSizeBytes === null || bytes[21] !== 64 || bytes[22] !== 32 || bytes[23] !== 32) {
    return { problem: 'its SQLite header is damaged (page size or payload fractions)' };
  }
  const statedPages = bytes.readUInt32BE(28);
  const pageCountValid = statedPages > 0 && bytes.readUInt32BE(92) === bytes.readUInt32BE(24);
  return {
    pageSizeBytes,
    reservedBytes: bytes[20] ?? 0,
    pageCount: pageCountValid ? statedPages : null,
    applicationId: bytes.readUInt32BE(APPLICATION_ID_OFFSET),
    userVersion: bytes.readUInt32BE(USER_VERSION_OFFSET),
  };
}

/** The newest image of page 1 SQLite would install from this WAL, if it holds one. */
export function installedPage1(wal: WalScan): WalFrame | undefined {
  return wal.frames.findLast((frame) => frame.replayed && frame.pageNumber === 1);
}

/** `length` bytes of the file at `position` (fewer where it ends sooner). */
export function readFileBytesAt(path: string, position: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    return readAt(fd, length, position);
  } finally {
    closeSync(fd);
  }
}

export interface WalFrame {
  pageNumber: number;
  /** Offset of the page image in the WAL file. */
  imageOffset: number;
  /** Part of the log SQLite replays: salts of this generation and a checksum chain intact up to a commit. */
  replayed: boolean;
}

export interface WalScan {
  pageSizeBytes: number | null;
  /** Every whole frame in the file, replayed or not (older generations, frames after damage). */
  frames: WalFrame[];
  /** Why SQLite would drop frames that were written as part of this log, or null. */
  problem: string | null;
}

/** SQLite's WAL checksum: pairs of 32-bit words in the log's byte order, summed with wrap-around. */
function walChecksum(bytes: Buffer, bigEndian: boolean, seed: [number, number]): [number, number] {
  let [s0, s1] = seed;
  for (let offset = 0; offset + 8 <= bytes.length; offset += 8) {
    const x0 = bigEndian ? bytes.readUInt32BE(offset) : bytes.readUInt32LE(offset);
    const x1 = bigEndian ? bytes.readUInt32BE(offset + 4) : bytes.readUInt32LE(offset + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

function readAt(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return read === length ? buffer : buffer.subarray(0, read);
}

/**
 * Walks a WAL file. SQLite replays frames while their salts match the header's and the running
 * checksum holds, up to the last commit; it silently drops everything after a break. A break
 * followed by more frames of the same generation, or a header that does not check out, means
 * written commits are lost: that is damage. A break at the very end is not: a crash (kill -9)
 * between the two writes of a frame leaves its transaction torn and uncommitted.
 */
export function scanWal(path: string): WalScan {
  const fd = openSync(path, 'r');
  try {
    const sizeBytes = fstatSync(fd).size;
    if (sizeBytes < WAL_HEADER_BYTES) return { pageSizeBytes: null, frames: [], problem: null };
    const header = readAt(fd, WAL_HEADER_BYTES, 0);
    const magic = header.readUInt32BE(0);
    const bigEndian = magic === WAL_MAGIC_BIG_ENDIAN;
    const pageSizeBytes = pageSizeOf(header.readUInt32BE(8));
    const headerSum = walChecksum(header.subarray(0, 24), bigEndian, [0, 0]);
    const headerIntact =
      (magic === WAL_MAGIC_LITTLE_ENDIAN || bigEndian) &&
      header.readUInt32BE(4) === WAL_FORMAT_VERSION &&
      headerSum[0] === header.readUInt32BE(24) &&
      headerSum[1] === header.readUInt32BE(28);
    if (!headerIntact || pageSizeBytes === null) {
      return { pageSizeBytes, frames: [], problem: 'its header is damaged, so SQLite would ignore every commit in it' };
    }
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);
    const frameBytes = WAL_FRAME_HEADER_BYTES + pageSizeBytes;
    const frames: WalFrame[] = [];
    let sum = headerSum;
    let breakIndex = -1;
    let lastCommitIndex = -1;
    let problem: string | null = null;
    for (let offset = WAL_HEADER_BYTES; offset + frameBytes <= sizeBytes; offset += frameBytes) {
      const frame = readAt(fd, frameBytes, offset);
      const sameGeneration = frame.readUInt32BE(8) === salt1 && frame.readUInt32BE(12) === salt2;
      const index = frames.length;
      frames.push({ pageNumber: frame.readUInt32BE(0), imageOffset: offset + WAL_FRAME_HEADER_BYTES, replayed: false });
      if (breakIndex !== -1) {
        if (sameGeneration) problem ??= `frame ${breakIndex + 1} is broken (its checksum fails) and frames of the log follow it`;
        continue;
      }
      sum = walChecksum(Buffer.concat([frame.subarray(0, 8), frame.subarray(WAL_FRAME_HEADER_BYTES)]), bigEndian, sum);
      if (!sameGeneration || sum[0] !== frame.readUInt32BE(16) || sum[1] !== frame.readUInt32BE(20)) breakIndex = index;
      else if (frame.readUInt32BE(4) !== 0) lastCommitIndex = index;
    }
    for (let index = 0; index <= lastCommitIndex; index += 1) (frames[index] as WalFrame).replayed = true;
    return { pageSizeBytes, frames, problem };
  } finally {
    closeSync(fd);
  }
}

/**
 * Page images of a database and its WAL: `page(n)` is what SQLite would read (the newest
 * replayed frame, else the file), `images()` is every image there is, stale ones included.
 */
export class PageSource {
  readonly pageSizeBytes: number;
  readonly usableBytes: number;
  readonly #dbFd: number | null;
  readonly #dbPages: number;
  readonly #walFd: number | null;
  readonly #frames: readonly WalFrame[];
  readonly #newestFrame = new Map<number, WalFrame>();

  constructor(options: {
    dbPath: string | null;
    walPath: string | null;
    wal: WalScan | null;
    pageSizeBytes: number;
    reservedBytes: number;
  }) {
    this.pageSizeBytes = options.pageSizeBytes;
    this.usableBytes = options.pageSizeBytes - options.reservedBytes;
    this.#dbFd = options.dbPath === null ? null : openSync(options.dbPath, 'r');
    this.#dbPages = this.#dbFd === null ? 0 : Math.floor(fstatSync(this.#dbFd).size / options.pageSizeBytes);
    const walUsable = options.walPath !== null && options.wal !== null && options.wal.pageSizeBytes === options.pageSizeBytes;
    this.#walFd = walUsable ? openSync(options.walPath as string, 'r') : null;
    this.#frames = walUsable ? (options.wal as WalScan).frames : [];
    for (const frame of this.#frames) if (frame.replayed) this.#newestFrame.set(frame.pageNumber, frame);
  }

  page(pageNumber: number): Buffer | null {
    const frame = this.#newestFrame.get(pageNumber);
    if (frame !== undefined && this.#walFd !== null) return readAt(this.#walFd, this.pageSizeBytes, frame.imageOffset);
    if (this.#dbFd === null || pageNumber < 1 || pageNumber > this.#dbPages) return null;
    return readAt(this.#dbFd, this.pageSizeBytes, (pageNumber - 1) * this.pageSizeBytes);
  }

  /** Every page of the file, then every frame of the WAL, each with its page number. */
  *images(): Generator<{ pageNumber: number; image: Buffer }> {
    const pagesPerRead = 256;
    for (let first = 1; first <= this.#dbPages; first += pagesPerRead) {
      const count = Math.min(pagesPerRead, this.#dbPages - first + 1);
      const chunk = readAt(this.#dbFd as number, count * this.pageSizeBytes, (first - 1) * this.pageSizeBytes);
      for (let index = 0; index < count; index += 1) {
        yield { pageNumber: first + index, image: chunk.subarray(index * this.pageSizeBytes, (index + 1) * this.pageSizeBytes) };
      }
    }
    for (const frame of this.#frames)
      yield { pageNumber: frame.pageNumber, image: readAt(this.#walFd as number, this.pageSizeBytes, frame.imageOffset) };
  }

  close(): void {
    if (this.#dbFd !== null) closeSync(this.#dbFd);
    if (this.#walFd !== null) closeSync(this.#walFd);
  }
}

/** A varint at `offset`: its value and length; null past the end of `bytes`. */
function readVarint(bytes: Buffer, offset: number): { value: number; length: number } | null {
  let value = 0;
  for (let index = 0; index < 9; index += 1) {
    const byte = bytes[offset + index];
    if (byte === undefined) return null;
    if (index === 8) return { value: value * 256 + byte, length: 9 };
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return { value, length: index + 1 };
  }
  return null;
}

function fieldBytes(serialType: number): number {
  if (serialType >= 12) return Math.floor((serialType - 12) / 2);
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1][serialType] ?? -1;
}

function readField(bytes: Buffer, offset: number, serialType: number): FileValue {
  switch (serialType) {
    case 0:
      return null;
    case 8:
      return 0;
    case 9:
      return 1;
    case 7:
      return bytes.readDoubleBE(offset);
    case 6: {
      const value = bytes.readBigInt64BE(offset);
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
    }
    default:
      if (serialType >= 1 && serialType <= 5) return bytes.readIntBE(offset, fieldBytes(serialType));
      if (serialType % 2 === 0) return new Uint8Array(bytes.subarray(offset, offset + fieldBytes(serialType)));
      return bytes.toString('utf8', offset, offset + fieldBytes(serialType));
  }
}

/**
 * A record's fields. `payload` may be cut short (an overflow chain that could not be followed):
 * fields past its end are `undefined`. Null when the record header itself is not sound.
 */
export function decodeRecord(payload: Buffer): RecordFields | null {
  const headerSize = readVarint(payload, 0);
  if (headerSize === null || headerSize.value < 1 || headerSize.value > payload.length) return null;
  const serialTypes: number[] = [];
  for (let offset = headerSize.length; offset < headerSize.value; ) {
    const serialType = readVarint(payload, offset);
    if (serialType === null || fieldBytes(serialType.value) < 0) return null;
    serialTypes.push(serialType.value);
    offset += serialType.length;
  }
  const fields: RecordFields = [];
  let offset = headerSize.value;
  for (const serialType of serialTypes) {
    const length = fieldBytes(serialType);
    fields.push(offset + length <= payload.length ? readField(payload, offset, serialType) : undefined);
    offset += length;
  }
  return fields;
}

/** Bytes of a payload kept on the leaf page itself (the rest goes to overflow pages). */
function localPayloadBytes(payloadBytes: number, usableBytes: number): number {
  const maxLocal = usableBytes - 35;
  if (payloadBytes <= maxLocal) return payloadBytes;
  const minLocal = Math.floor(((usableBytes - 12) * 32) / 255) - 23;
  const local = minLocal + ((payloadBytes - minLocal) % (usableBytes - 4));
  return local <= maxLocal ? local : minLocal;
}

/** The payload's bytes, following its overflow chain as far as the pages allow. */
function assemblePayload(image: Buffer, start: number, payloadBytes: number, pages: PageSource): Buffer {
  const local = localPayloadBytes(payloadBytes, pages.usableBytes);
  const parts = [image.subarray(start, Math.min(start + local, image.length))];
  if (local === payloadBytes || start + local + 4 > image.length) return parts[0] as Buffer;
  let next = image.readUInt32BE(start + local);
  let remaining = payloadBytes - local;
  // A chain longer than the payload needs is a loop or garbage: stop there.
  for (let hops = Math.ceil(remaining / (pages.usableBytes - 4)); remaining > 0 && next !== 0 && hops > 0; hops -= 1) {
    const overflow = pages.page(next);
    if (overflow === null) break;
    const take = Math.min(remaining, pages.usableBytes - 4);
    parts.push(overflow.subarray(4, 4 + take));
    remaining -= take;
    next = overflow.readUInt32BE(0);
  }
  return Buffer.concat(parts);
}

/** The records of one table leaf page image (none for any other kind of page, or a garbled one). */
export function leafRecords(pageNumber: number, image: Buffer, pages: PageSource): RecordFields[] {
  const headerOffset = pageNumber === 1 ? DB_HEADER_BYTES : 0;
  if (image[headerOffset] !== TABLE_LEAF_PAGE) return [];
  const cellCount = image.readUInt16BE(headerOffset + 3);
  const records: RecordFields[] = [];
  for (let cell = 0; cell < cellCount; cell += 1) {
    const pointerOffset = headerOffset + 8 + cell * 2;
    if (pointerOffset + 2 > image.length) break;
    const cellOffset = image.readUInt16BE(pointerOffset);
    const payloadBytes = readVarint(image, cellOffset);
    const rowid = payloadBytes === null ? null : readVarint(image, cellOffset + payloadBytes.length);
    if (payloadBytes === null || rowid === null || cellOffset < headerOffset + 8) continue;
    const start = cellOffset + payloadBytes.length + rowid.length;
    const record = decodeRecord(assemblePayload(image, start, payloadBytes.value, pages));
    if (record !== null) records.push(record);
  }
  return records;
}
