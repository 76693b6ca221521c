#!/usr/bin/env bash
# Runs the keychain tests against a real Secret Service (test/support/withKeyring.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
exec bash test/support/withKeyring.sh npx vitest run --project keychain "$@"
