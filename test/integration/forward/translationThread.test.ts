import { describe, expect, it } from 'vitest';
import { chatRequestFor } from '../../../proxy/forward/translation/translationJob.ts';
import { NO_MODEL_REFUSALS } from '../../../proxy/protocols/adapter.ts';
import {
  MAX_TRANSLATION_THREAD_FAILURES,
  RETIRE_AFTER_JOB_BYTES,
  TranslationThread,
  TranslationUnavailableError,
} from '../../../proxy/forward/translation/translationThreadClient.ts';
import { SENTINEL_KEY } from '../../support/sentinel.ts';
import { threadNames } from '../../support/procStat.ts';

const MESSAGES_BODY = {
  model: 'claude-sonnet-4',
  max_tokens: 100,
  system: 'Be brief.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello, é 😀' }] }],
  tools: [{ name: 'read', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
};

/** The body as a client sends it: JSON split across reads. */
function chunked(value: unknown, pieces = 3): { chunks: Buffer[]; byteLength: number } {
  const bytes = Buffer.from(JSON.stringify(value));
  const size = Math.ceil(bytes.length / pieces);
  const chunks = Array.from({ length: pieces }, (_unused, index) => bytes.subarray(index * size, (index + 1) * size));
  return { chunks, byteLength: bytes.length };
}

describe('TranslationThread', () => {
  it('translates on its own thread to exactly what the forwarding loop would send', async () => {
    const thread = new TranslationThread();
    const body = chunked(MESSAGES_BODY);
    const translated = await thread.translate('messages', body.chunks, body.byteLength, 'gpt-4o-mini', { gatewayTag: 'gw' });
    const onLoop = chatRequestFor('messages', MESSAGES_BODY, 'gpt-4o-mini', NO_MODEL_REFUSALS, 'gw');
    if (!translated.ok || !onLoop.ok) throw new Error('expected both translations to succeed');
    expect(translated.sentJson.toString('utf8')).toBe(JSON.stringify(onLoop.chatBody));
    expect({ stream: translated.stream, notes: translated.notes }).toEqual({ stream: onLoop.stream, notes: onLoop.notes });
    expect(threadNames()).toContain('airlock-transl');
  });

  it('says why a body cannot be translated: not JSON, or not a valid request', async () => {
    const thread = new TranslationThread();
    await expect(thread.translate('responses', [Buffer.from('{"model":')], 9, 'm')).resolves.toEqual({
      ok: false,
      message: expect.stringContaining('not valid JSON'),
    });
    // A key pasted unquoted: V8's message quoted its first ten characters, which no mask of the whole key finds.
    const pasted = Buffer.from(`{"model":"m","api_key": ${SENTINEL_KEY}}`);
    const refused = await thread.translate('messages', [pasted], pasted.length, 'm');
    expect(refused).toEqual({ ok: false, message: 'the request body is not valid JSON (invalid symbol at line 1, column 25)' });
    const invalid = chunked({ model: 'm', messages: 'not a list' });
    await expect(thread.translate('messages', invalid.chunks, invalid.byteLength, 'm')).resolves.toMatchObject({
      ok: false,
      message: expect.stringContaining('invalid Messages request'),
    });
  });

  it('says across the thread that no fix can serve a refused request (a server tool it forces)', async () => {
    const thread = new TranslationThread();
    const forced = chunked({
      ...MESSAGES_BODY,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      tool_choice: { type: 'tool', name: 'web_search' },
    });
    await expect(thread.translate('messages', forced.chunks, forced.byteLength, 'm')).resolves.toEqual({
      ok: false,
      message: expect.stringContaining('runs only at Anthropic'),
      unfixable: true,
    });
  });

  it("keeps the names of client tools chat cannot name as the client does (Codex's apply_patch), for the answer's calls", async () => {
    const thread = new TranslationThread();
    const responsesBody = {
      model: 'gpt-5-codex',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Patch it' }] }],
      tools: [
        {
          type: 'custom',
          name: 'apply_patch',
          description: 'Applies a patch',
          format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' },
        },
      ],
    };
    const body = chunked(responsesBody);
    const translated = await thread.translate('responses', body.chunks, body.byteLength, 'gpt-4o-mini', { gatewayTag: 'gw' });
    const onLoop = chatRequestFor('responses', responsesBody, 'gpt-4o-mini', NO_MODEL_REFUSALS, 'gw');
    if (!translated.ok || !onLoop.ok) throw new Error('expected both translations to succeed');
    expect(onLoop.clientToolNames).toMatchObject({ apply_patch: { name: 'apply_patch', freeform: true } });
    expect(translated.clientToolNames).toEqual(onLoop.clientToolNames);
  });

  it('stops its thread once idle after a heavy job, so the heap that job grew goes back, and starts a new one for the next', async () => {
    const thread = new TranslationThread();
    const light = chunked(MESSAGES_BODY);
    await thread.translate('messages', light.chunks, light.byteLength, 'gpt-4o-mini');
    expect(thread.threadRunning).toBe(true);
    const heavy = chunked({ ...MESSAGES_BODY, system: 'x'.repeat(RETIRE_AFTER_JOB_BYTES) }, 200);
    await expect(thread.translate('messages', heavy.chunks, heavy.byteLength, 'gpt-4o-mini')).resolves.toMatchObject({ ok: true });
    expect(thread.threadRunning).toBe(false);
    await expect(thread.translate('messages', light.chunks, light.byteLength, 'gpt-4o-mini')).resolves.toMatchObject({ ok: true });
    expect(thread.threadRunning).toBe(true);
  });

  it('stops its thread after any job once idle for stopWhenIdleMs (a light one too), and starts a new one for the next', async () => {
    const thread = new TranslationThread({ stopWhenIdleMs: 1 });
    const light = chunked(MESSAGES_BODY);
    await expect(thread.translate('messages', light.chunks, light.byteLength, 'gpt-4o-mini')).resolves.toMatchObject({ ok: true });
    await expect.poll(() => thread.threadRunning).toBe(false);
    await expect(thread.translate('messages', light.chunks, light.byteLength, 'gpt-4o-mini')).resolves.toMatchObject({ ok: true });
    expect(thread.threadRunning).toBe(true);
    await thread.close();
  });

  it('fails the job a dying thread held, reports it redacted, and refuses heavy bodies after repeated deaths', async () => {
    const failures: string[] = [];
    const thread = new TranslationThread({
      threadUrl: new URL('./fixtures/crashingTranslationThread.ts', import.meta.url),
      onFailure: (reason) => failures.push(reason),
    });
    const body = chunked(MESSAGES_BODY);
    for (let attempt = 0; attempt < MAX_TRANSLATION_THREAD_FAILURES; attempt += 1) {
      await expect(thread.translate('messages', body.chunks, body.byteLength, 'gpt-4o-mini')).rejects.toThrow(
        'the translation thread stopped before it answered',
      );
    }
    // Translated on the forwarding loop instead, a heavy body would stall every other request.
    await expect(thread.translate('messages', body.chunks, body.byteLength, 'gpt-4o-mini')).rejects.toThrow(TranslationUnavailableError);
    expect(failures.filter((reason) => reason.includes('the translation thread broke'))).toHaveLength(MAX_TRANSLATION_THREAD_FAILURES);
    expect(failures.at(-1)).toMatch(/refused until Airlock restarts/);
    expect(failures.join('\n')).not.toContain(SENTINEL_KEY);
  });

  it('stops its thread on close without counting it as a failure; a later body starts a new one', async () => {
    const failures: string[] = [];
    const thread = new TranslationThread({ onFailure: (reason) => failures.push(reason) });
    const body = chunked(MESSAGES_BODY);
    await thread.translate('messages', body.chunks, body.byteLength, 'gpt-4o-mini', { gatewayTag: 'gw' });
    expect(thread.threadRunning).toBe(true);
    await thread.close();
    expect(thread.threadRunning).toBe(false);
    await expect(thread.translate('messages', body.chunks, body.byteLength, 'gpt-4o-mini')).resolves.toMatchObject({ ok: true });
    await thread.close();
    expect(failures).toEqual([]);
  });
});
