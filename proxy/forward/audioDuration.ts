import { bytesIn } from './bodyRewrite.ts';
import type { FormFields } from './multipartForm.ts';
import type { UploadAudio } from '../contracts/ports.ts';

/**
 * How many seconds of audio an upload may be billed for, known before it is sent, so a price per
 * audio minute (whisper-1) counts against budget caps as a per-call price does. A WAV file says its
 * length in its header (the samples' bytes over the byte rate). Compressed audio says it only in its
 * frames, which Airlock does not decode: its bytes are taken at 8 kbit/s, the low end of speech
 * codecs (telephone-grade AMR and Opus), an over-count for any common encoding (mp3 at 128 kbit/s
 * 16 times). The hold ends with the request, and the spend is then the seconds the gateway reported.
 */

const FLOOR_BYTES_PER_SECOND = 1000;
/** RIFF chunks before the samples (`fmt `, LIST metadata) fit in this; past it the length is bounded by bytes. */
const WAV_HEAD_BYTES = 4096;

/** The uploaded file's seconds of audio at most; null when the form holds no file. */
export function uploadAudioOf(chunks: readonly Buffer[], fields: FormFields): UploadAudio | null {
  const file = fields.parts.find((part) => part.filename !== null);
  if (file === undefined) return null;
  const { start, end } = file.valueRange;
  const head = bytesIn(chunks, { start, end: Math.min(end, start + WAV_HEAD_BYTES) });
  const exactSeconds = wavSeconds(head, file.byteLength);
  return exactSeconds === null
    ? { seconds: file.byteLength / FLOOR_BYTES_PER_SECOND, exact: false }
    : { seconds: exactSeconds, exact: true };
}

/** A RIFF/WAVE file's length from its `fmt ` byte rate and its `data` size (cut to the bytes present); null for anything else. */
function wavSeconds(head: Buffer, fileBytes: number): number | null {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return null;
  let byteRate = 0;
  for (let offset = 12; offset + 8 <= head.length; ) {
    const id = head.toString('latin1', offset, offset + 4);
    const size = head.readUInt32LE(offset + 4);
    const dataStart = offset + 8;
    if (id === 'fmt ' && dataStart + 12 <= head.length) byteRate = head.readUInt32LE(dataStart + 8);
    // A recorder that streams writes the data size as 0 or 0xFFFFFFFF before it knows it: the bytes present bound it.
    if (id === 'data') return byteRate > 0 ? Math.min(size || Number.POSITIVE_INFINITY, fileBytes - dataStart) / byteRate : null;
    // Chunks are padded to an even length.
    offset = dataStart + size + (size % 2);
  }
  return null;
}
