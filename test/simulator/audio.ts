import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { invalidRequest, modelNotFound } from './errors.ts';
import { sendJson, startEventStream } from './respond.ts';
import type { Voice } from './voice.ts';
import { sendGatewayError } from './voice.ts';

/**
 * OpenAI's audio endpoints as its API reference describes them (platform.openai.com/docs/api-reference/audio):
 * speech answers the audio file itself, in the bytes of `response_format` (mp3 by default);
 * transcriptions take a multipart form (`file`, `model`, `response_format`, `stream`) and answer JSON,
 * or plain text for `text`, `srt` and `vtt`. whisper-1 reports `usage` as `{type: "duration", seconds}`,
 * the gpt-4o transcribe models as `{type: "tokens", input_tokens, output_tokens, ...}`, and only they
 * stream (`transcript.text.delta` events, then `transcript.text.done` with the usage).
 */
const SPEECH_MODELS: ReadonlySet<string> = new Set(['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts']);
const DURATION_BILLED_MODELS: ReadonlySet<string> = new Set(['whisper-1']);
const TOKEN_BILLED_TRANSCRIBE_MODELS: ReadonlySet<string> = new Set(['gpt-4o-transcribe', 'gpt-4o-mini-transcribe']);

const SPEECH_CONTENT_TYPES: Readonly<Record<string, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** Audio bytes per character of input: a second of mp3 at 128 kbit/s holds 16 KB. */
const SPEECH_BYTES_PER_CHAR = 1200;

/**
 * The audio the simulator "speaks" for `input`: every byte value occurs (NULs, bytes past 0x7f, lone
 * UTF-8 continuation bytes), so a relay that decodes it as text, or rewrites any of it, changes its hash.
 */
export function speechAudio(input: string, format = 'mp3'): Buffer {
  const length = Math.max(256, input.length * SPEECH_BYTES_PER_CHAR);
  const audio = Buffer.alloc(length);
  let block = createHash('sha256').update(`${format}:${input}`).digest();
  for (let offset = 0; offset < length; offset += block.length) {
    block.copy(audio, offset);
    block = createHash('sha256').update(block).digest();
  }
  for (let value = 0; value < 256; value += 1) audio[value] = value;
  return audio;
}

export function answerSpeech(response: ServerResponse, json: Record<string, unknown>, voice: Voice): void {
  const { model, input } = json;
  const format = typeof json.response_format === 'string' ? json.response_format : 'mp3';
  if (typeof model !== 'string' || !SPEECH_MODELS.has(model)) {
    const named = typeof model === 'string' ? model : '';
    sendGatewayError(response, voice, 404, modelNotFound(named), { subject: named });
    return;
  }
  const contentType = SPEECH_CONTENT_TYPES[format];
  if (typeof input !== 'string' || input === '' || contentType === undefined) {
    sendGatewayError(
      response,
      voice,
      400,
      invalidRequest('`input` must be a non-empty string and `response_format` a known format.', 'invalid_request', 'input'),
    );
    return;
  }
  const audio = speechAudio(input, format);
  response.writeHead(200, { 'content-type': contentType, 'content-length': audio.length });
  response.end(audio);
}

/** One part of a multipart/form-data body (RFC 7578), as the simulator reads it: its own reader, not Airlock's. */
interface FormPart {
  name: string;
  filename: string | null;
  value: Buffer;
}

export function formParts(body: Buffer, contentType: string | undefined): FormPart[] | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const delimiter = boundary?.[1] ?? boundary?.[2];
  if (delimiter === undefined) return null;
  const parts: FormPart[] = [];
  const marker = Buffer.from(`--${delimiter}`);
  let start = body.indexOf(marker);
  while (start !== -1) {
    const headersStart = start + marker.length + 2;
    const next = body.indexOf(marker, headersStart);
    if (next === -1) break;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart);
    if (headersEnd === -1 || headersEnd > next) return null;
    const headers = body.subarray(headersStart, headersEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) return null;
    parts.push({ name, filename: /filename="([^"]*)"/i.exec(headers)?.[1] ?? null, value: body.subarray(headersEnd + 4, next - 2) });
    start = next;
  }
  return parts;
}

/** Seconds of audio the simulator hears in a file: 16 KB a second, as mp3 at 128 kbit/s. */
const AUDIO_BYTES_PER_SECOND = 16_000;
/** Audio tokens per second of input, about what OpenAI's transcribe models report. */
const AUDIO_TOKENS_PER_SECOND = 10;

export function answerTranscription(
  response: ServerResponse,
  body: Buffer,
  contentType: string | undefined,
  voice: Voice,
  echoedKey: string | null,
): void {
  const parts = formParts(body, contentType);
  const field = (name: string): string | null =>
    parts?.find((part) => part.name === name && part.filename === null)?.value.toString('utf8') ?? null;
  const file = parts?.find((part) => part.name === 'file' && part.filename !== null);
  if (parts === null || file === undefined) {
    sendGatewayError(response, voice, 400, invalidRequest('A multipart form with a `file` is required.', 'invalid_request', 'file'));
    return;
  }
  const model = field('model') ?? '';
  if (!DURATION_BILLED_MODELS.has(model) && !TOKEN_BILLED_TRANSCRIBE_MODELS.has(model)) {
    sendGatewayError(response, voice, 404, modelNotFound(model), { subject: model });
    return;
  }
  const seconds = Math.max(1, Math.round(file.value.length / AUDIO_BYTES_PER_SECOND));
  // A model repeats what it hears: an echoKey fault makes the audio "say" the key.
  const text = `transcript of ${file.value.length} bytes from ${file.filename}${echoedKey === null ? '' : ` ${echoedKey}`}`;
  const outputTokens = Math.ceil(text.length / 4);
  const usage = DURATION_BILLED_MODELS.has(model)
    ? { type: 'duration', seconds }
    : {
        type: 'tokens',
        input_tokens: seconds * AUDIO_TOKENS_PER_SECOND,
        input_token_details: { text_tokens: 0, audio_tokens: seconds * AUDIO_TOKENS_PER_SECOND },
        output_tokens: outputTokens,
        total_tokens: seconds * AUDIO_TOKENS_PER_SECOND + outputTokens,
      };
  if (field('stream') === 'true' && TOKEN_BILLED_TRANSCRIBE_MODELS.has(model)) {
    startEventStream(response);
    for (const word of text.split(/(?<= )/)) response.write(`data: ${JSON.stringify({ type: 'transcript.text.delta', delta: word })}\n\n`);
    response.end(`data: ${JSON.stringify({ type: 'transcript.text.done', text, usage })}\n\n`);
    return;
  }
  const format = field('response_format') ?? 'json';
  if (format === 'text' || format === 'srt' || format === 'vtt') {
    const cue = `00:00:00${format === 'vtt' ? '.' : ','}000 --> 00:00:${String(seconds).padStart(2, '0')}${format === 'vtt' ? '.' : ','}000`;
    const plain = format === 'text' ? `${text}\n` : format === 'srt' ? `1\n${cue}\n${text}\n` : `WEBVTT\n\n${cue}\n${text}\n`;
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(plain) });
    response.end(plain);
    return;
  }
  sendJson(
    response,
    200,
    format === 'verbose_json' ? { task: 'transcribe', language: 'english', duration: seconds, text, usage } : { text, usage },
  );
}
