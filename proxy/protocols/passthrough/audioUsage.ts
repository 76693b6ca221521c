import type { TokenUsage } from '../../contracts/usage.ts';
import { isRecord } from '../../core/isRecord.ts';
import { responsesUsageOf } from '../responses/usage.ts';

/** A length of audio in seconds, as answers give it (a fraction is kept: billing is to the second or finer). */
const seconds = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);

/**
 * The audio seconds a transcription or translation answer reports, with any tokens beside them; null
 * when it reports none. OpenAI's API reference: whisper-1 answers `usage: {type: "duration", seconds}`
 * (TranscriptTextUsageDuration; the gpt-4o transcribe models `{type: "tokens", ...}`, read as tokens
 * elsewhere), and verbose_json carries the audio's `duration` beside `task`, which is all a gateway
 * that reports no usage leaves. OpenRouter's speech-to-text usage has `seconds` beside its tokens.
 * Only answers that are transcripts are read: another answer's `duration` (a video's) is no audio.
 */
export function audioUsageOf(answer: Record<string, unknown>): TokenUsage | null {
  const { usage } = answer;
  if (isRecord(usage)) {
    const isDuration = usage.type === 'duration';
    const audioSeconds = isDuration || typeof answer.text === 'string' ? seconds(usage.seconds) : null;
    if (audioSeconds === null) return null;
    const tokens = isDuration ? null : responsesUsageOf(usage);
    return { ...(tokens ?? { inputTokens: 0, outputTokens: 0 }), audioSeconds };
  }
  const isTranscript = (answer.task === 'transcribe' || answer.task === 'translate') && typeof answer.text === 'string';
  const audioSeconds = isTranscript ? seconds(answer.duration) : null;
  return audioSeconds === null ? null : { inputTokens: 0, outputTokens: 0, audioSeconds };
}
