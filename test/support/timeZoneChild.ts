import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Runs `script` (a fixture taking a scenario name and its JSON input, printing its JSON result) in
 * a child process whose local time zone is `timeZone`: local days and months are the process's, and
 * a test worker's zone must not change under the tests that share it.
 */
export async function runInTimeZone<Result>(script: string, timeZone: string, scenario: string, input: unknown): Promise<Result> {
  const { stdout } = await run(process.execPath, [script, scenario, JSON.stringify(input)], {
    env: { ...process.env, TZ: timeZone },
  });
  return JSON.parse(stdout) as Result;
}
