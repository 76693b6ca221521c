import { describe, expect, it } from 'vitest';
import { ForwardShutdown } from '../../../proxy/forward/shutdown.ts';

describe('ForwardShutdown: requests before their exchange', () => {
  it('ends every request still before its exchange, and counts it as ended', async () => {
    const shutdown = new ForwardShutdown();
    const first = shutdown.beforeExchange();
    const second = shutdown.beforeExchange();
    expect(first.signal.aborted).toBe(false);
    const report = await shutdown.stopAll(0);
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(true);
    expect(report.endedRequests).toBe(2);
  });

  it('no longer counts a request once its exchange started, however often that is said', async () => {
    const shutdown = new ForwardShutdown();
    const started = shutdown.beforeExchange();
    shutdown.beforeExchange();
    started.exchangeStarts();
    started.exchangeStarts();
    expect((await shutdown.stopAll(0)).endedRequests).toBe(1);
  });

  it('counts an exchange it ends beside the requests before theirs', async () => {
    const shutdown = new ForwardShutdown();
    shutdown.beforeExchange();
    const ended: string[] = [];
    shutdown.watch(() => ended.push('exchange'));
    expect((await shutdown.stopAll(0)).endedRequests).toBe(2);
    expect(ended).toEqual(['exchange']);
  });

  it('gives a request that arrives after the stop an aborted signal', async () => {
    const shutdown = new ForwardShutdown();
    await shutdown.stopAll(0);
    expect(shutdown.beforeExchange().signal.aborted).toBe(true);
  });
});
