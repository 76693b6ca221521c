import type { BilledUnits } from '../../contracts/ports.ts';

/**
 * What a passed-through request is billed by that its own body states exactly, known before it is
 * sent: the seconds of video a creation asks for, the characters a speech request speaks. Each is
 * read only where a price per video second or per 1M characters asks (cost.ts `unitsCostOf`).
 *
 * - OpenAI's Videos API (POST /videos, and the relays copying it): `seconds`, a string ("4", "8",
 *   "12") in its form or JSON, 4 when absent (platform.openai.com/docs/api-reference/videos/create).
 * - The relays that serve video under POST /video/generations (New API's family) take `seconds` as
 *   OpenAI does, some `duration` (docs.gogogotoken.ai overseas/seedance-token): no default is shared.
 * - Volcengine Ark's video tasks (POST /contents/generations/tasks, Seedance): a top-level `duration`
 *   in seconds or, in the older shape, a `--duration N` (`--dur N`) command in the text content;
 *   5 seconds when neither is given (Ark's "create a video generation task" reference).
 * - OpenAI's speech (POST /audio/speech): its `input`, priced per character for tts-1 and tts-1-hd
 *   (platform.openai.com/docs/pricing), counted as Unicode code points. OpenAI does not say how it
 *   counts them (review RM found no statement); code points are what Python's `len` gives, and differ
 *   from UTF-16 units only outside the BMP (an emoji is 1, not 2).
 */
type FieldOf = (name: string) => unknown;

interface VideoShape {
  fields: readonly string[];
  defaultSeconds: number | null;
  textCommands: boolean;
}

const OPENAI_DEFAULT_SECONDS = 4;
const ARK_DEFAULT_SECONDS = 5;

const VIDEO_SHAPES: ReadonlyMap<string, VideoShape> = new Map([
  ['videos', { fields: ['seconds'], defaultSeconds: OPENAI_DEFAULT_SECONDS, textCommands: false }],
  ['video/generations', { fields: ['seconds', 'duration'], defaultSeconds: null, textCommands: false }],
  ['contents/generations/tasks', { fields: ['duration'], defaultSeconds: ARK_DEFAULT_SECONDS, textCommands: true }],
]);

/** The fields a length is read from: a form naming one twice is refused (multipartForm.ts), as for its model. */
export const BILLED_UNIT_FIELDS: readonly string[] = [...new Set([...VIDEO_SHAPES.values()].flatMap((shape) => shape.fields))];

const SPEECH_PATH = 'audio/speech';
/** Ark's parameter commands in a prompt: `--duration 5` or its short form `--dur 5`. */
const DURATION_COMMAND = /(?:^|\s)--dur(?:ation)?\s+(\d+(?:\.\d+)?)(?=\s|$)/;

/** Whether a POST to `path` (relative to /v1) may state units: asked first, so other requests read nothing. */
export function statesBilledUnits(path: string): boolean {
  return path === SPEECH_PATH || VIDEO_SHAPES.has(path);
}

/** The units a POST to `path` states; null where it states none (or a length the gateway would refuse). */
export function billedUnitsOf(path: string, field: FieldOf): BilledUnits | null {
  if (path === SPEECH_PATH) {
    const input = field('input');
    return typeof input === 'string' ? { speechCharacters: codePoints(input) } : null;
  }
  const shape = VIDEO_SHAPES.get(path);
  if (shape === undefined) return null;
  for (const name of shape.fields) {
    const stated = field(name);
    if (stated !== undefined) {
      const seconds = secondsOf(stated);
      return seconds === null ? null : { videoSeconds: seconds };
    }
  }
  const commanded = shape.textCommands ? commandedSeconds(field('content')) : null;
  const seconds = commanded ?? shape.defaultSeconds;
  return seconds === null ? null : { videoSeconds: seconds };
}

/** A length in seconds as a number or a numeric string; null for anything a gateway would refuse. */
function secondsOf(value: unknown): number | null {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** A `--duration` command in an Ark content list's text parts. */
function commandedSeconds(content: unknown): number | null {
  if (!Array.isArray(content)) return null;
  for (const part of content) {
    const text = (part as { text?: unknown } | null)?.text;
    const match = typeof text === 'string' ? DURATION_COMMAND.exec(text) : null;
    if (match?.[1] !== undefined) return secondsOf(match[1]);
  }
  return null;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
