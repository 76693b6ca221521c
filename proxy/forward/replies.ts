import type { ServerResponse } from 'node:http';
import type { ErrorClass } from '../contracts/errors.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import { explainError, type ClientErrorDetail } from '../core/errorClass.ts';
import { adapterNamed } from '../protocols/registry.ts';
import { writeAnswerHead } from './answerHead.ts';
import { finalAnswerStatus } from './clientRetries.ts';

export type ErrorDetail = ClientErrorDetail;

/** The error body in the shape the client's protocol expects (its adapter's). */
export function errorBodyFor(protocol: ClientProtocol, status: number, errorClass: ErrorClass, detail: ErrorDetail): object {
  return adapterNamed(protocol).errors.body(status, errorClass, detail);
}

/** The status a client of this protocol gets for a failure the gateway answered with `upstreamStatus`. */
export function errorStatusFor(protocol: ClientProtocol, errorClass: ErrorClass, upstreamStatus: number): number {
  return adapterNamed(protocol).errors.status(errorClass, upstreamStatus);
}

export function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const payload = JSON.stringify(body);
  writeAnswerHead(res, status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
  });
  res.end(payload);
}

/**
 * Answers a refusal in the client's protocol; returns the status sent, which the row keeps. A refusal
 * no retry fixes (its class's, or its own `x-should-retry: false`) says so, which the OpenAI and
 * Anthropic SDKs and Claude Code obey, and goes with the status at which the client stops resending
 * it (clientRetries.ts: Codex reads no such header).
 */
export function sendRefusal(res: ServerResponse, protocol: ClientProtocol, refusal: LocalRefusal): number {
  const final = refusal.headers?.['x-should-retry'] === 'false' || !explainError(refusal.errorClass).retryable;
  const headers = final ? { 'x-should-retry': 'false', ...refusal.headers } : refusal.headers;
  const status = answeredStatus(res, refusal.status, final);
  sendJson(res, status, adapterNamed(protocol).errors.refusalBody(refusal), headers);
  return status;
}

/** The status a failure goes to the client with; `final`: no resend changes it (`x-should-retry: false`). */
export function answeredStatus(res: ServerResponse, status: number, final: boolean): number {
  return final ? finalAnswerStatus(res.req.headers, status) : status;
}
