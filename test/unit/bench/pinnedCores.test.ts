import { describe, expect, it } from 'vitest';
import { allowedCpuList, measureOnSplitCores, splitCoresCommands, splitCpus, type SplitSystem } from '../../bench/pinnedCores.ts';

describe('allowedCpuList', () => {
  it('reads the CPU list from a /proc status', () => {
    expect(allowedCpuList('Name:\tnode\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n')).toBe('0-1');
  });

  it('is null when the status has none', () => {
    expect(allowedCpuList('Name:\tnode\n')).toBeNull();
  });
});

describe('splitCpus', () => {
  it.each([
    ['0-1', { mainCpu: 0, backgroundCpus: '1' }],
    ['0-3', { mainCpu: 0, backgroundCpus: '1,2,3' }],
    ['2,5-6', { mainCpu: 2, backgroundCpus: '5,6' }],
    ['4-4,6', { mainCpu: 4, backgroundCpus: '6' }],
    ['0', null],
    ['0,', null],
    ['', null],
    ['a-b', null],
  ])('%j gives %j', (list, cpus) => {
    expect(splitCpus(list)).toEqual(cpus);
  });
});

describe('splitCoresCommands', () => {
  it('moves every thread to the background CPUs first, then the main thread alone to the main CPU', () => {
    expect(splitCoresCommands(4242, { mainCpu: 2, backgroundCpus: '5,6' })).toEqual([
      ['-a', '-p', '-c', '5,6', '4242'],
      ['-p', '-c', '2', '4242'],
    ]);
  });
});

/** A system whose processes may run on `0-1`; `failing` says which taskset calls throw. */
function fakeSystem(failing: (args: readonly string[]) => boolean = () => false): SplitSystem & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    taskset(args) {
      calls.push(args.join(' '));
      if (failing(args)) throw new Error(`taskset ${args.join(' ')} failed`);
    },
    status: () => 'Cpus_allowed_list:\t0-1\n',
  };
}

describe('measureOnSplitCores', () => {
  it('splits every process after each settle, measures, then gives every process its CPUs back', async () => {
    const system = fakeSystem();
    const events: string[] = [];
    const result = await measureOnSplitCores(
      async (settleAndSplit) => {
        await settleAndSplit();
        events.push(`run after ${system.calls.length} calls`);
        return 'figures';
      },
      [10, 20],
      async () => {
        events.push('settled');
      },
      system,
    );
    expect(result).toBe('figures');
    expect(events).toEqual(['settled', 'run after 5 calls']);
    expect(system.calls).toEqual([
      '--version',
      '-a -p -c 1 10',
      '-p -c 0 10',
      '-a -p -c 1 20',
      '-p -c 0 20',
      '-a -p -c 0-1 10',
      '-a -p -c 0-1 20',
    ]);
  });

  it('gives every process its CPUs back when the measurement throws, and throws its error, not a restore failure', async () => {
    const system = fakeSystem((args) => args.join(' ') === '-a -p -c 0-1 10');
    await expect(
      measureOnSplitCores(
        async () => {
          throw new Error('the load failed');
        },
        [10, 20],
        async () => undefined,
        system,
      ),
    ).rejects.toThrow('the load failed');
    expect(system.calls.slice(-2)).toEqual(['-a -p -c 0-1 10', '-a -p -c 0-1 20']);
  });

  it('says the split failed instead of passing off unsplit runs as split ones', async () => {
    const system = fakeSystem((args) => args.join(' ') === '-p -c 0 20');
    const result = await measureOnSplitCores(
      async (settleAndSplit) => {
        await settleAndSplit();
        return 'figures';
      },
      [10, 20],
      async () => undefined,
      system,
    );
    expect(result).toBe('could not split: taskset -p -c 0 20 failed');
  });

  it('says why without taskset, and runs nothing', async () => {
    const system = fakeSystem((args) => args[0] === '--version');
    let ran = false;
    const result = await measureOnSplitCores(
      async () => {
        ran = true;
        return 'figures';
      },
      [10],
      async () => undefined,
      system,
    );
    expect(result).toBe('needs taskset (util-linux)');
    expect(ran).toBe(false);
  });
});
