import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../simulator/main.ts', import.meta.url));

it('runs standalone: prints its base URL, serves the given key, exits cleanly on SIGTERM', async () => {
  const child = spawn(process.execPath, [MAIN, '--port', '0', '--key', 'sk-demo-key-123456'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: child.stdout });
    const [line] = (await Promise.race([
      once(lines, 'line'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no start line within 10 s')), 10_000)),
    ])) as [string];
    const match = /^simulator listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line);
    expect(match).not.toBeNull();
    const response = await fetch(`${match?.[1]}/models`, { headers: { authorization: 'Bearer sk-demo-key-123456' } });
    expect(response.status).toBe(200);
    await response.text();
    child.kill('SIGTERM');
    const [exitCode] = (await once(child, 'exit')) as [number | null];
    expect(exitCode).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
