import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explanationOf } from '../../../proxy/app/control/mapping.ts';
import { startHarness } from '../../support/proxyHarness.ts';
import { type RawGateway, startRawGateway } from '../../support/rawGateway.ts';
import { findSentinel } from '../../support/sentinel.ts';

/**
 * A gateway whose answer is not valid HTTP/1.1. Servers do send such answers: one wrote its log lines
 * among its headers (AdguardTeam/CoreLibs#870), another a header line with a space in its name
 * (nghttp2/nghttp2#698, HPE_INVALID_HEADER_TOKEN); and a base URL may point at a port where
 * something else than an HTTP server listens. The answer came only once the whole request had: the
 * gateway may have run it and charged for it.
 */
const INVALID_ANSWERS: [string, string][] = [
  ['a garbage status line', 'garbage\r\n\r\n'],
  ['a header line the parser refuses', 'HTTP/1.1 200 OK\r\nSecured by Excellent Serv :\r\ncontent-length: 2\r\n\r\n{}'],
];

let standIn: RawGateway;
beforeAll(async () => {
  standIn = await startRawGateway({ bytes: '' });
});
afterAll(async () => {
  await standIn.close();
});

describe('a gateway answering a chat POST with something that is not valid HTTP', () => {
  it.each(INVALID_ANSWERS)('%s: sent once, the client told so, the row not a network failure', async (_name, invalid) => {
    standIn.reset({ bytes: invalid });
    // Airlock's own retries (a client that does not retry by itself) and a fallback step would each send it again.
    const harness = await startHarness({
      profile: {
        baseUrl: standIn.baseUrl,
        fallbacks: [{ model: 'another-model' }],
      },
    });
    try {
      const { response, end } = await harness.postChat();
      expect(standIn.requestsReceived).toBe(1);
      expect(response.status).toBe(502);
      const { error } = JSON.parse(response.body) as { error: { message: string; type: string } };
      expect(error.message).toMatch(/answer was not valid HTTP/);
      // It may have run: the client's SDK is told not to send it again either.
      expect(response.headers['x-should-retry']).toBe('false');
      expect(end.errorClass).not.toBe('network');
      expect(end.errorMessage).toMatch(/answer was not valid HTTP/);
      expect(end.errorMessage).not.toMatch(/connection to the gateway failed|check the network/i);
      // What the window shows for the row's class.
      const shown = explanationOf(end.errorClass!, end.status);
      expect(shown.meaning).toMatch(/answer was not valid HTTP/);
      expect(`${shown.meaning} ${shown.fix}`).not.toMatch(/connection to the gateway failed|check the network/i);
      expect(findSentinel(response.body)).toBeNull();
      expect(findSentinel(JSON.stringify(harness.events))).toBeNull();
    } finally {
      await harness.close();
    }
  });
});
