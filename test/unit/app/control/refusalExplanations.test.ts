import { describe, expect, it } from 'vitest';
import type { ErrorClass } from '../../../../proxy/contracts/errors.ts';
import { detailOf } from '../../../../proxy/app/control/mapping.ts';
import { rowFromStart } from '../../../../proxy/store/write/rowDraft.ts';

/**
 * The request detail explains a failure under the refusal's own message: an explanation of the
 * class alone contradicted the message where one class holds refusals of different causes, told
 * apart by their status (proxy/app/targetResolver.ts, proxy/spend/idempotencyCache.ts).
 */
function failedRow(errorClass: ErrorClass, status: number, errorMessage: string | null = null) {
  return {
    ...rowFromStart({
      type: 'start',
      requestId: 'alk_1',
      startedAtMs: Date.UTC(2026, 0, 2),
      method: 'POST',
      clientPath: '/v1/chat/completions',
      upstreamPath: 'chat/completions',
      profileId: 'main',
      clientName: 'cli',
      protocol: 'openai',
      protocolMode: 'native',
      requestedModel: 'gpt-4o-mini',
      upstreamModel: 'gpt-4o-mini',
      stream: false,
      notes: [],
    }),
    state: 'done' as const,
    status,
    errorClass,
    errorMessage,
  };
}

const explained = (errorClass: ErrorClass, status: number, errorMessage: string | null = null) =>
  detailOf({ row: failedRow(errorClass, status, errorMessage), bodies: null }).explanation;

describe('the explanation of a refusal whose status names its cause', () => {
  it('a key the keychain has not given yet (503) is not explained as a missing key, and waiting is the fix', () => {
    const explanation = explained('no_key', 503);
    expect(explanation?.meaning).not.toMatch(/no gateway key stored/);
    expect(explanation?.fix).not.toMatch(/Store the key/);
    expect(explanation?.fix).toMatch(/keychain/i);
    expect(explanation?.retryable).toBe(true);
    // The profile with no key at all keeps its own explanation.
    expect(explained('no_key', 403)?.fix).toMatch(/Store the key/);
  });

  it('an idempotency key reused with another request (422) is not explained as malformed JSON', () => {
    for (const status of [422, 409]) {
      const explanation = explained('invalid_request', status);
      expect(explanation?.meaning).not.toMatch(/malformed JSON/);
      expect(explanation?.fix).toMatch(/idempotency key/);
    }
    expect(explained('invalid_request', 400)?.meaning).toMatch(/malformed JSON/);
  });

  it("a gateway's or its firewall's 403 is not explained as a request to fix", () => {
    const explanation = explained('bad_request', 403);
    expect(explanation?.fix).not.toMatch(/^Fix the request/);
    expect(explanation?.fix).toMatch(/firewall/);
  });
});

describe('the explanation of a cap refused for spend the log is missing', () => {
  it('names every way back, not only freeing disk space: spend a past run lost stands until its period ends or the user accepts it', () => {
    const fix = explained('ledger_incomplete', 507)?.fix ?? '';
    expect(fix).toMatch(/disk/);
    expect(fix).toMatch(/delete the file the message names/);
  });

  it('a stream the gateway closed before it was whole is not sent to a timeout setting; one that broke still is', () => {
    const closed = explained('stream_interrupted', 200, 'the gateway ended the stream without a finish_reason');
    expect(closed?.fix).not.toMatch(/idleTimeoutMs/);
    expect(closed?.meaning).toMatch(/ended the stream or answer before it was whole/);
    // A whole JSON answer the gateway ended cut short is the same failure, not another site answering.
    const cut = explained('stream_interrupted', 502, 'the gateway ended its answer after 120 bytes, its JSON cut short');
    expect(cut).toEqual(closed);
    expect(explained('stream_interrupted', 200, 'the upstream answer broke off: ECONNRESET')?.fix).toMatch(/idleTimeoutMs/);
  });
});
