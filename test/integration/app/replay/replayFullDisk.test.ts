import { describe, expect, it } from 'vitest';
import type { ReplayResponse } from '../../../../proxy/contracts/replay.ts';
import { findSentinel } from '../../../support/sentinel.ts';
import { fullDiskForEachTest } from '../../store/fullDiskAirlock.ts';

const disk = fullDiskForEachTest();

describe('a replay while the disk is full', () => {
  it('answers the comparison from the replay itself when the log cannot write its row: the replay ran and was charged', async () => {
    // A request logged whole while there was room.
    disk.freeSpace();
    let current = await disk.start();
    const [reply] = await current.chat(disk.agentToken);
    const originalId = String(reply?.headers['x-airlock-request-id']);
    await current.airlock.stop();

    disk.fill();
    current = await disk.start();
    expect(current.airlock.log.getRequest(originalId)?.bodies?.requestBody).toBeTruthy();
    disk.simulator.reset();
    const response = await fetch(`${current.airlock.proxy.url}/_airlock/api/requests/${originalId}/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${current.airlock.controlToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const text = await response.text();
    expect(disk.simulator.received.filter((received) => received.path.includes('/chat/completions'))).toHaveLength(1);
    expect(response.status, text).toBe(200);
    const answer = JSON.parse(text) as ReplayResponse;
    const [end] = current.ends;
    expect(end?.requestId).toBe(answer.replayId);
    // Its row is kept in memory until the disk has room: the comparison reads the replay's own end.
    expect(current.airlock.log.getRequest(answer.replayId)).toBeNull();
    expect(answer.replay).toMatchObject({
      id: answer.replayId,
      status: 200,
      errorClass: null,
      inputTokens: end?.usage?.inputTokens,
      outputTokens: end?.usage?.outputTokens,
      costCredits: end?.costCredits,
      model: 'gpt-4o-mini',
    });
    expect(answer.replay.costCredits).toBeGreaterThan(0);
    expect(answer.replay.answerText).toBe(answer.original.answerText);
    expect(answer.difference).toMatchObject({ statusChanged: false, answerChanged: false });
    expect(findSentinel(text)).toBeNull();
  });
});
