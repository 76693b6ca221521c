#!/usr/bin/env bash
# `npm test`: typecheck, build the window (the e2e tests drive the built UI), then every test
# project; the keychain tests run in a private D-Bus session with a fresh keyring.
set -euo pipefail
cd "$(dirname "$0")/.."
echo '== typecheck'
npx tsc -p tsconfig.json
echo '== build the window'
npx vite build --config renderer/vite.config.ts --logLevel warn
echo '== unit, integration and e2e tests'
npx vitest run --project unit --project integration --project e2e
echo '== keychain tests (real Secret Service)'
bash test/keychain/run.sh
