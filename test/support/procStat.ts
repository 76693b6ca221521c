import { readFileSync } from 'node:fs';

/**
 * The fields of a Linux `/proc/.../stat` file from the third on (state, ppid, ...): the second,
 * the command name, is in parentheses and may itself hold spaces, so the split starts after it.
 * Index 11 is utime, 12 stime, 16 nice.
 */
export function procStatFields(statPath: string): string[] {
  const stat = readFileSync(statPath, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
