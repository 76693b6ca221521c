import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { findSentinel } from '../sentinel.ts';

/**
 * Every form of each key found in every file under `dataDir` (config, database and its WAL, log
 * files): `[file, key form]` pairs, empty when none leaked.
 */
export function keyLeaksInFiles(dataDir: string, keys: readonly string[]): Array<[string, string]> {
  const leaks: Array<[string, string]> = [];
  for (const name of readdirSync(dataDir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dataDir, name);
    if (!statSync(file).isFile()) continue;
    const content = readFileSync(file);
    for (const key of keys) {
      const form = findSentinel(content, key);
      if (form !== null) leaks.push([name, form]);
    }
  }
  return leaks;
}
