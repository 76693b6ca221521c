import type { ServerResponse } from 'node:http';
import type { Dialect } from './dialect.ts';
import type { SimulatedErrorBody } from './errors.ts';
import { renderError } from './gatewayErrors.ts';

/** How the simulator answers one request: in the current dialect, quoting this request's id. */
export interface Voice {
  dialect: Dialect;
  requestId: string;
}

export interface FailOptions {
  /** What the error is about (a model id), for the dialect's message. */
  subject?: string;
  /** Keep the given status even where the dialect answers this error with another (a scripted fault). */
  keepStatus?: boolean;
  headers?: Record<string, string>;
}

/** Sends a canonical error as the dialect's gateway would send it. */
export function sendGatewayError(
  response: ServerResponse,
  voice: Voice,
  status: number,
  canonical: SimulatedErrorBody,
  options: FailOptions = {},
): void {
  const rendered = renderError(voice.dialect, canonical, {
    status,
    requestId: voice.requestId,
    ...(options.subject === undefined ? {} : { subject: options.subject }),
  });
  const finalStatus = options.keepStatus === true ? status : rendered.status;
  response.writeHead(finalStatus, {
    ...options.headers,
    'content-type': rendered.contentType,
    'content-length': Buffer.byteLength(rendered.text),
  });
  response.end(rendered.text);
}
