#!/usr/bin/env node
// The `airlock` command. Airlock's sources are TypeScript run by Node 24's type stripping; an
// older Node gets an explanation instead of a syntax error.
import { nodeVersionProblem } from './nodeVersion.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
await import('./main.ts');
