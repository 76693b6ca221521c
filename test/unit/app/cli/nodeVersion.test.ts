import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../../../proxy/app/cli/nodeVersion.js';

describe('the airlock command on an older Node', () => {
  it.each([['24.0.0'], ['24.21.0'], ['25.1.0']])('runs on Node %s', (version) => {
    expect(nodeVersionProblem(version)).toBeNull();
  });

  it.each([['20.20.2'], ['22.12.0'], ['18.0.0']])('explains on Node %s what it needs and how to get it', (version) => {
    const problem = nodeVersionProblem(version) ?? '';
    expect(problem).toContain(`needs Node.js 24 or newer; this is Node.js ${version}.`);
    expect(problem).toContain("`npx airlock ...` runs on the project's own Node 24");
    expect(problem).toContain('https://nodejs.org/en/download');
  });
});
