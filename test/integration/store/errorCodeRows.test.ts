import { afterEach, describe, expect, it } from 'vitest';
import { endEvent, startEvent } from '../../support/lifecycleEvents.ts';
import { openTempLog, type TempLog } from './tempLog.ts';
import { detailOf } from '../../../proxy/app/control/mapping.ts';
import { explainError, STREAM_ENDED_EARLY_CAUSE, STREAM_ENDED_EARLY_CODE } from '../../../proxy/core/errorExplanations.ts';

let temp: TempLog | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

const earlyEndFix = explainError('stream_interrupted', STREAM_ENDED_EARLY_CODE).fix;

describe("a failed request's code on its row", () => {
  it('is kept, and picks the explanation whatever the message says', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('early'));
    // A message worded otherwise (a translated stream's, a later rewording): the code still tells.
    const failure = { status: 502, errorClass: 'stream_interrupted' as const, errorMessage: 'the answer stopped after 12 bytes' };
    temp.events.emit(endEvent('early', { ...failure, errorCode: STREAM_ENDED_EARLY_CODE }));
    temp.events.emit(startEvent('cut'));
    temp.events.emit(endEvent('cut', failure));
    await temp.log.flush();

    const early = temp.log.getRequest('early');
    expect(early?.row.errorCode).toBe(STREAM_ENDED_EARLY_CODE);
    expect(detailOf(early!).explanation?.fix).toBe(earlyEndFix);
    const cut = temp.log.getRequest('cut');
    expect(cut?.row.errorCode).toBeNull();
    expect(detailOf(cut!).explanation?.fix).not.toBe(earlyEndFix);
  });

  it('is missing from rows written before it was kept: their message still picks the early end', async () => {
    temp = openTempLog();
    temp.events.emit(startEvent('old'));
    const errorMessage = `${STREAM_ENDED_EARLY_CAUSE} after 3 chunks, before its finish`;
    temp.events.emit(endEvent('old', { status: 502, errorClass: 'stream_interrupted', errorMessage }));
    await temp.log.flush();
    expect(detailOf(temp.log.getRequest('old')!).explanation?.fix).toBe(earlyEndFix);
  });
});
