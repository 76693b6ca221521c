// @ts-check
// Plain JavaScript, loaded before anything else by bin.js: it must run on any Node to explain
// that Airlock's TypeScript sources need Node 24's type stripping.

export const REQUIRED_NODE_MAJOR = 24;

/**
 * Why this Node cannot run Airlock, or null when it can.
 * @param {string} nodeVersion `process.versions.node`, e.g. "20.20.2"
 * @returns {string | null}
 */
export function nodeVersionProblem(nodeVersion) {
  const major = Number(nodeVersion.split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return null;
  return [
    `airlock needs Node.js ${REQUIRED_NODE_MAJOR} or newer; this is Node.js ${nodeVersion}.`,
    `  In the Airlock folder, \`npx airlock ...\` runs on the project's own Node ${REQUIRED_NODE_MAJOR} (installed by npm install).`,
    `  Elsewhere, install Node.js ${REQUIRED_NODE_MAJOR}: https://nodejs.org/en/download (or \`nvm install ${REQUIRED_NODE_MAJOR}\`).`,
  ].join('\n');
}
