#!/usr/bin/env node
// Airlock's sources are TypeScript run by Node 24's type stripping; older Nodes cannot load them.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`airlock needs Node.js 24 or newer (this is ${process.versions.node}). Run it through npm (\`npm run serve\`), which uses the project's Node 24, or install Node 24.`);
  process.exit(1);
}
await import('./main.ts');
