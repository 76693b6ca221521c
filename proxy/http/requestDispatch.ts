import type { IncomingMessage, ServerResponse } from 'node:http';
import { guardRefusal } from './requestGuards.ts';
import { redactSecrets } from '../core/redact.ts';
import { sendContinue } from '../forward/requestBody.ts';
import { CONTROL_PREFIX } from '../contracts/defaults.ts';
import { writeAnswerHead } from '../forward/answerHead.ts';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

const CONTROL_PREFIX_LOWER = CONTROL_PREFIX.toLowerCase();

/**
 * True when the Express app may have a route for this target: `/`, `/favicon.ico` and anything
 * under the control prefix. Express matches case-insensitively and allows a trailing slash, so this
 * errs wide; the app falls through to the forward handler for whatever it does not answer itself.
 */
export function isAppRoute(requestTarget: string): boolean {
  let end = requestTarget.length;
  const queryAt = requestTarget.indexOf('?');
  if (queryAt !== -1) end = queryAt;
  const hashAt = requestTarget.indexOf('#');
  if (hashAt !== -1 && hashAt < end) end = hashAt;
  const path = requestTarget.slice(0, end).toLowerCase();
  return path === '/' || path === '/favicon.ico' || path === '/favicon.ico/' || path.startsWith(CONTROL_PREFIX_LOWER);
}

/** Where a handler's unexpected error is said when the run names no place: stderr, masked by shape (no keys are known here). */
export function sayUnexpectedErrorOnStderr(message: string): void {
  console.error(`[airlock] ${redactSecrets(message)}`);
}

/**
 * The answer when a handler throws: a generic JSON 500; the cause goes to `report` (startAirlock's
 * notices and stderr), which masks it: it may quote a key. The client is answered first and the
 * report is guarded: a report that threw (the notice board reads its known secrets) must neither
 * leave the client waiting nor reject unhandled, which ends the process on Node 24.
 */
export function answerUnexpectedError(error: unknown, res: ServerResponse, report: (message: string) => void): void {
  if (res.headersSent) res.destroy();
  else {
    const payload = JSON.stringify({
      error: {
        message:
          "Airlock failed unexpectedly; the request was not completed. Airlock's notices (in its window, or on the terminal it runs in) say why.",
        type: 'internal',
        code: 'internal',
      },
    });
    writeAnswerHead(res, 500, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  }
  const message = `a request failed unexpectedly: ${error instanceof Error ? error.message : 'unknown error'}`;
  try {
    report(message);
  } catch (reportError) {
    sayUnexpectedErrorOnStderr(
      `${message}; reporting it failed too: ${reportError instanceof Error ? reportError.message : 'unknown error'}`,
    );
  }
}

export interface DispatchOptions {
  /** The Express app: guard refusals, `/`, favicon, control API and UI, then the forward handler. */
  app: RequestListener;
  forward: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  port: () => number;
  /** Where a handler's unexpected error is said (answerUnexpectedError). */
  reportUnexpectedError: (message: string) => void;
}

/**
 * Express's router, request decoration and middleware chain cost about a tenth of the proxy's CPU
 * per forwarded request, while forwarding needs none of it. So a request that passes the guards
 * and is not for one of the app's own routes goes straight to the forward handler; everything else
 * (refusals included, so they are answered by the same middleware as before) goes through Express.
 */
export function createRequestDispatch(options: DispatchOptions): RequestListener {
  const { app, forward, port, reportUnexpectedError } = options;
  return (req, res) => {
    const target = req.url ?? '';
    const refused = guardRefusal(req.headers.host, req.headers.origin, target, port()) !== null;
    if (refused || isAppRoute(target)) {
      // The forward handler says when it wants the body; the app's routes read theirs at once, and a refusal never asks for it.
      if (!refused) sendContinue(req, res);
      app(req, res);
      return;
    }
    forward(req, res).catch((error: unknown) => answerUnexpectedError(error, res, reportUnexpectedError));
  };
}
