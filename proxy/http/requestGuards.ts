import type { RequestHandler } from 'express';
import { checkHost, checkOrigin, ownOrigins } from './hostOrigin.ts';
import { forbidden, refusalBody } from './refusals.ts';
import type { LocalRefusal } from '../contracts/ports.ts';
import { finalAnswerStatus } from '../forward/clientRetries.ts';

export interface RequestGuardOptions {
  /** The port the proxy listens on; a function when it is only known after listen (port 0). */
  port: number | (() => number);
}

/**
 * The first middleware of every route, control API included. Refuses with a final 403 before anything
 * else runs: a Host that is not a loopback name with our port (DNS rebinding), an Origin that is
 * not the app's own (a web page), and an absolute-form request target (Airlock is not a forward
 * proxy; the upstream is always the profile's base URL). No CORS header is ever set, so a
 * foreign preflight gets no allow headers.
 */
export function createRequestGuards(options: RequestGuardOptions): RequestHandler {
  const { port } = options;
  const currentPort = typeof port === 'function' ? port : () => port;
  return (req, res, next) => {
    const refusal = guardRefusal(req.headers.host, req.headers.origin, req.originalUrl, currentPort());
    if (!refusal) {
      next();
      return;
    }
    // Final: no resend changes the Host, Origin or target. Codex reads no x-should-retry and resends a 403 (five times by
    // default, "Reconnecting..."), so it gets this as every final answer (forward/clientRetries.ts finalAnswerStatus).
    res.status(finalAnswerStatus(req.headers, refusal.status)).set('x-should-retry', 'false').json(refusalBody(refusal));
  };
}

/** Pure decision behind the middleware; null lets the request through. */
export function guardRefusal(
  host: string | undefined,
  origin: string | undefined,
  requestTarget: string,
  port: number,
): LocalRefusal | null {
  if (!checkHost(host, port)) {
    return forbidden(
      'forbidden_host',
      `Airlock only answers requests addressed to 127.0.0.1:${port}, localhost:${port} or [::1]:${port}; ` +
        'point your client at http://127.0.0.1:' +
        port,
    );
  }
  if (!checkOrigin(origin, ownOrigins(port))) {
    return forbidden('forbidden_origin', 'Airlock does not answer requests from web pages other than its own window.');
  }
  if (!requestTarget.startsWith('/')) {
    return forbidden('forbidden_target', 'Airlock is not a forward proxy: send requests to a path such as /v1/chat/completions.');
  }
  return null;
}
