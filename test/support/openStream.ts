import { request } from 'node:http';

export interface StreamOutcome {
  body: string;
  /** True when the stream ended with its last chunk; false when the connection was cut (a TCP reset). */
  endedCleanly: boolean;
}

export interface OpenStream {
  /** Resolves once the first bytes of the answer arrived: the stream is under way. */
  started: Promise<void>;
  /** Resolves with everything received once the stream ends or breaks. */
  outcome: Promise<StreamOutcome>;
}

/** A streaming POST whose progress a test can wait on, and whose end tells a clean end from a cut. */
export function openStream(url: string, headers: Record<string, string>, body: string): OpenStream {
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const outcome = new Promise<StreamOutcome>((resolve) => {
    let received = '';
    let settled = false;
    const settle = (endedCleanly: boolean): void => {
      if (settled) return;
      settled = true;
      markStarted();
      resolve({ body: received, endedCleanly });
    };
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        received += chunk;
        markStarted();
      });
      res.on('end', () => settle(true));
      res.on('aborted', () => settle(false));
      res.on('error', () => settle(false));
    });
    req.on('error', () => settle(false));
    req.end(body);
  });
  return { started, outcome };
}
