import { request } from 'node:http';

export interface StreamOutcome {
  body: string;
  /** True when the stream ended with its last chunk; false when the connection was cut (a TCP reset). */
  endedCleanly: boolean;
}

export interface OpenStream {
  /** Resolves once what arrived satisfies `startedWhen` (by default: any bytes), or the stream ended. */
  started: Promise<void>;
  /** Resolves with everything received once the stream ends or breaks. */
  outcome: Promise<StreamOutcome>;
}

/** True once a Chat Completions stream carried `count` chunks of text (its first chunk has none). */
export function hasChatText(count: number): (body: string) => boolean {
  return (body) => (body.match(/"content":"[^"]/g) ?? []).length >= count;
}

/** A streaming POST whose progress a test can wait on, and whose end tells a clean end from a cut. */
export function openStream(
  url: string,
  headers: Record<string, string>,
  body: string,
  startedWhen: (received: string) => boolean = () => true,
): OpenStream {
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
        if (startedWhen(received)) markStarted();
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
