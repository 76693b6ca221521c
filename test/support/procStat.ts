import { readdirSync, readFileSync } from 'node:fs';

/**
 * The fields of a Linux `/proc/.../stat` file from the third on (state, ppid, ...): the second,
 * the command name, is in parentheses and may itself hold spaces, so the split starts after it.
 * Index 11 is utime, 12 stime, 16 nice, 38 the scheduling policy.
 */
export function procStatFields(statPath: string): string[] {
  const stat = readFileSync(statPath, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The names of this process's threads now (a worker's OS thread carries its `name` option while it runs; Linux). */
export function threadNames(): string[] {
  return readdirSync('/proc/self/task').map((threadId) => {
    try {
      return readFileSync(`/proc/self/task/${threadId}/comm`, 'utf8').trim();
    } catch {
      return ''; // ended between the listing and the read
    }
  });
}

const NICE_FIELD = 16;
const POLICY_FIELD = 38;

/** One numeric stat field of each thread of this process named `name` (a worker's OS thread takes its `name` option). */
function statFieldOfThreads(name: string, field: number): number[] {
  return readdirSync('/proc/self/task')
    .filter((threadId) => readFileSync(`/proc/self/task/${threadId}/comm`, 'utf8').trim() === name)
    .map((threadId) => Number(procStatFields(`/proc/self/task/${threadId}/stat`)[field]));
}

/** The nice value of each thread of this process named `name`. */
export function niceOfThreads(name: string): number[] {
  return statFieldOfThreads(name, NICE_FIELD);
}

/** Linux's SCHED_IDLE policy number, as /proc shows it. */
export const SCHED_IDLE = 5;

/** The scheduling policy of each thread of this process named `name` (0 is the normal SCHED_OTHER). */
export function policyOfThreads(name: string): number[] {
  return statFieldOfThreads(name, POLICY_FIELD);
}
