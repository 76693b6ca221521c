import { describe, expect, it } from 'vitest';
import { allowedCpuList, firstTwoCpus, splitCoresCommands } from '../../bench/pinnedCores.ts';

describe('allowedCpuList', () => {
  it('reads the CPU list from a /proc status', () => {
    expect(allowedCpuList('Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n')).toBe('0-1');
  });

  it('is null when the status has none', () => {
    expect(allowedCpuList('Name:\tnode\n')).toBeNull();
  });
});

describe('firstTwoCpus', () => {
  it.each([
    ['0-1', [0, 1]],
    ['0-7', [0, 1]],
    ['2,5-6', [2, 5]],
    ['3,9', [3, 9]],
    ['4-4,6', [4, 6]],
    ['0', null],
    ['', null],
    ['a-b', null],
  ])('%j gives %j', (list, cpus) => {
    expect(firstTwoCpus(list)).toEqual(cpus);
  });
});

describe('splitCoresCommands', () => {
  it('moves every thread to the background CPU first, then the main thread alone to the main CPU', () => {
    expect(splitCoresCommands(4242, [2, 5])).toEqual([
      ['-a', '-p', '-c', '5', '4242'],
      ['-p', '-c', '2', '4242'],
    ]);
  });
});
