import { copyInSlices } from '../../core/copyInSlices.ts';
import { IDLE_THREAD_STOP_MS, OnDemandThread } from '../../core/onDemandThread.ts';
import { reportProcessProblem } from '../../core/processProblems.ts';
import { threadScriptUrl } from '../../core/threadScript.ts';
import type { TranslatedBody, TranslatedProtocol } from './translationJob.ts';
import { NO_MODEL_REFUSALS, type ModelRefusals } from '../../protocols/adapter.ts';
import type { FromTranslationThread, ToTranslationThread } from './translationThreadMessages.ts';

/** The thread's script: `translationThread.ts`, or the bundled `translationThread.js` next to main.js. */
const TRANSLATION_THREAD_URL = threadScriptUrl(import.meta.url, 'translationThread');
/** The OS thread's name (at most 15 characters on Linux). */
const TRANSLATION_THREAD_NAME = 'airlock-transl';
/**
 * After a job this large, the thread is stopped once it has nothing left to do: V8 keeps the heap
 * a large parse grew (30 MB of small keys left it 400 MB larger for good), and a stopped thread
 * gives all of it back. The next heavy body starts a new one, which takes about 0.3 s.
 */
export const RETIRE_AFTER_JOB_BYTES = 8 * 1024 * 1024;
/** A thread that dies this many times in a row without answering is not started again. */
export const MAX_TRANSLATION_THREAD_FAILURES = 3;
interface Pending {
  resolve: (answer: TranslatedBody) => void;
  reject: (error: Error) => void;
}

/** Why a heavy body could not be translated: its request is refused with a 503, nothing sent. */
export class TranslationUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TranslationUnavailableError';
  }
}

/**
 * Translates heavy Messages and Responses bodies on a thread of its own (translationThread.ts),
 * started at the first one: light bodies are translated on the forwarding loop and most users
 * never start it. A job the thread was working on when it died fails (its request is refused and
 * nothing is sent). After repeated deaths heavy bodies are refused until Airlock restarts: one
 * translated on the forwarding loop would stall every other request while it runs.
 */
export class TranslationThread {
  private readonly thread: OnDemandThread<ToTranslationThread, FromTranslationThread, Pending>;
  /** Set by a job of RETIRE_AFTER_JOB_BYTES or more: the thread stops when it is idle. */
  private retireWhenIdle = false;

  constructor(options: { threadUrl?: URL; onFailure?: (reason: string) => void; stopWhenIdleMs?: number } = {}) {
    const onFailure = options.onFailure ?? ((reason) => reportProcessProblem('translation_failed', `translation: ${reason}`));
    this.thread = new OnDemandThread({
      scriptUrl: options.threadUrl ?? TRANSLATION_THREAD_URL,
      threadName: TRANSLATION_THREAD_NAME,
      maxFailuresInARow: MAX_TRANSLATION_THREAD_FAILURES,
      // Stopped after IDLE_THREAD_STOP_MS without a job; a parse's garbage is collected inside it sooner (translationThread.ts).
      stopWhenIdleMs: options.stopWhenIdleMs ?? IDLE_THREAD_STOP_MS,
      onAnswer: (message, pending) => pending?.resolve(translatedBody(message)),
      onUnanswered: ({ reject }, cause) =>
        reject(
          new TranslationUnavailableError(
            cause === 'died' ? 'the translation thread stopped before it answered' : 'Airlock stopped before the body was translated',
          ),
        ),
      onError: (message) => onFailure(`the translation thread failed (${message})`),
      onGaveUp: () => onFailure('the translation thread stopped several times in a row; large bodies are refused until Airlock restarts'),
      onIdle: () => this.retireIfAsked(),
    });
  }

  /** Whether a thread is started (and not retired or dead). */
  get threadRunning(): boolean {
    return this.thread.running;
  }

  async translate(
    protocol: TranslatedProtocol,
    chunks: readonly Buffer[],
    byteLength: number,
    upstreamModel: string,
    /**
     * `native`: send natively, the body only losing what Airlock made under translation
     * (NativeRequestCleanup); `refusals`: what the gateway refused of the model's requests before (ModelRefusals);
     * `gatewayTag`: the gateway a translated body goes to (gatewayTagOf; none for a native one, which marks nothing).
     */
    {
      native = false,
      refusals = NO_MODEL_REFUSALS,
      gatewayTag = '',
    }: { native?: boolean; refusals?: ModelRefusals; gatewayTag?: string } = {},
  ): Promise<TranslatedBody> {
    const json = await copyInSlices(chunks, byteLength);
    if (!this.thread.available) {
      throw new TranslationUnavailableError(
        `the translation thread stopped ${MAX_TRANSLATION_THREAD_FAILURES} times in a row, so large bodies are not translated until Airlock restarts`,
      );
    }
    if (byteLength >= RETIRE_AFTER_JOB_BYTES) this.retireWhenIdle = true;
    return new Promise((resolve, reject) => {
      this.thread.ask({ resolve, reject }, (id) => ({ id, protocol, json, upstreamModel, native, refusals, gatewayTag }), [json.buffer]);
    });
  }

  private retireIfAsked(): void {
    if (!this.retireWhenIdle) return;
    this.retireWhenIdle = false;
    void this.thread.stop();
  }

  /** Stops the thread (the proxy is stopping); a later heavy body starts a new one. */
  async close(): Promise<void> {
    this.retireWhenIdle = false;
    await this.thread.stop();
  }
}

function translatedBody(message: FromTranslationThread): TranslatedBody {
  if (!message.ok) return { ok: false, message: message.message, ...(message.unfixable ? { unfixable: true } : {}) };
  // Moved from the thread as a plain Uint8Array: a Buffer view of the same memory, no copy.
  const bytes = message.sentJson;
  return {
    ok: true,
    sentJson: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    stream: message.stream,
    notes: message.notes,
    ...(message.clientToolNames ? { clientToolNames: message.clientToolNames } : {}),
  };
}

/** One thread per process, shared by every proxy it runs. */
export const translationThread = new TranslationThread();
