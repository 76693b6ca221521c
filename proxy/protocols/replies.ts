import type { ServerResponse } from 'node:http';
import type { ErrorClass } from '../contracts/errors.ts';
import type { ClientProtocol } from '../contracts/usage.ts';
import { buildClientError, type ClientErrorDetail } from '../core/errorClass.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import { anthropicErrorBody } from './anthropic/errors.ts';

export type ErrorDetail = ClientErrorDetail;

/** The error body in the shape the client's protocol expects (Anthropic clients parse their own). */
export function errorBodyFor(protocol: ClientProtocol, status: number, errorClass: ErrorClass, detail: ErrorDetail): object {
  const openAi = buildClientError(errorClass, detail);
  return protocol === 'anthropic' ? anthropicErrorBody(status, openAi.error.message) : openAi;
}

export function sendJson(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
  });
  res.end(payload);
}

export function sendRefusal(res: ServerResponse, protocol: ClientProtocol, refusal: LocalRefusal): void {
  const body =
    protocol === 'anthropic'
      ? anthropicErrorBody(refusal.status, refusal.message)
      : { error: { message: refusal.message, type: refusal.errorClass, code: refusal.code ?? refusal.errorClass } };
  sendJson(res, refusal.status, body, refusal.headers);
}

/** A stream already under way cannot change its status: the failure goes in-band, never as a fake end. */
export function streamErrorFrame(protocol: ClientProtocol, errorClass: ErrorClass, detail: ErrorDetail): string {
  const openAi = buildClientError(errorClass, detail);
  if (protocol === 'anthropic') {
    return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(502, openAi.error.message))}\n\n`;
  }
  return `data: ${JSON.stringify(openAi)}\n\n`;
}
