#!/usr/bin/env bash
# `npm test`: every check (typecheck, Biome, knip) and every test project, each stage run even
# when an earlier one failed, so one failure never hides another. The keychain tests run in a
# private D-Bus session with a fresh keyring. Ends with one plain "N passed, N failed" line over
# all stages (a test counts once; a check such as the typecheck counts as one) and exits non-zero
# if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
rm -f test-results/vitest-*.json test-results/stages.tsv

# run_stage <kind> <name> <command...>: runs the command, records its exit code and wall time.
run_stage() {
  local kind="$1" name="$2"
  shift 2
  echo "== $name"
  local started=$SECONDS
  "$@"
  local code=$?
  printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$code" "$((SECONDS - started))" >>test-results/stages.tsv
}

stage() { run_stage check "$@"; }

# test_stage <name> <command...>: a vitest run whose JSON report is test-results/vitest-<name>.json.
test_stage() {
  local name="$1"
  shift
  run_stage tests "$name" "$@" --reporter=default --reporter=json "--outputFile.json=test-results/vitest-$name.json"
}

stage typecheck npm run --silent typecheck
stage lint npm run --silent lint
stage knip npm run --silent knip
stage 'window build' npx vite build --config renderer/vite.config.ts --logLevel warn
test_stage unit npx vitest run --project unit
test_stage integration npx vitest run --project integration
test_stage e2e npx vitest run --project e2e
test_stage keychain bash test/keychain/run.sh

npx node test/stageSummary.ts test-results
