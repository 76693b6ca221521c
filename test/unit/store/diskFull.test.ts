import { describe, expect, it } from 'vitest';
import { isDiskFullError } from '../../../proxy/store/write/writer.ts';

describe('isDiskFullError', () => {
  it.each([
    ['SQLITE_FULL from node:sqlite', Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13 }), true],
    ['ENOSPC from the OS', Object.assign(new Error('no space left'), { code: 'ENOSPC' }), true],
    ['another SQLite error', Object.assign(new Error('constraint failed'), { code: 'ERR_SQLITE_ERROR', errcode: 19 }), false],
    ['a plain error', new Error('boom'), false],
    ['not an error', 'full', false],
    ['null', null, false],
  ])('%s: %s', (_name, error, full) => {
    expect(isDiskFullError(error)).toBe(full);
  });
});
