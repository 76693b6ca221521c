#!/usr/bin/env bash
# `npm test`: typecheck, build the window (the e2e tests drive the built UI), then every test
# project; the keychain tests run in a private D-Bus session with a fresh keyring. Ends with one
# plain "N passed, N failed" line over all of them.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
rm -f test-results/vitest-*.json
echo '== typecheck'
npx tsc -p tsconfig.json
echo '== build the window'
npx vite build --config renderer/vite.config.ts --logLevel warn
echo '== unit, integration and e2e tests'
npx vitest run --project unit --project integration --project e2e --reporter=default --reporter=json --outputFile.json=test-results/vitest-main.json
echo '== keychain tests (real Secret Service)'
bash test/keychain/run.sh --reporter=default --reporter=json --outputFile.json=test-results/vitest-keychain.json
node -e '
  const fs = require("node:fs");
  let passed = 0, failed = 0;
  for (const file of ["main", "keychain"]) {
    const report = JSON.parse(fs.readFileSync(`test-results/vitest-${file}.json`, "utf8"));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
  }
  console.log(`${passed} passed, ${failed} failed`);
'
