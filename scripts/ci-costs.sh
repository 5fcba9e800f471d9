#!/usr/bin/env bash
# scripts/ci-costs.sh LOG... > test/ci-costs.txt
#
# The seconds each test took in the CI logs given (the output of
# `bash .ci/run`, or of `make test` / `make test-asan`), in the format of
# CTest's Testing/Temporary/CTestCostData.txt ("NAME RUNS SECONDS" lines,
# then "---"). test/ci.cmake seeds a build tree that has no cost data yet
# (CI's clean clone) with test/ci-costs.txt, so that ctest starts the longest
# tests first instead of in the order they were added, which leaves one core
# idle behind a long test that started last (docs/testing.md). A test missing
# from the file just starts in its usual place; refresh the file when the
# long tests change.
set -euo pipefail
(($# > 0)) || { echo "usage: $0 LOG... > test/ci-costs.txt" >&2; exit 2; }
grep -hE 'Test +#[0-9]+: [^ ]+ \.+ +Passed +[0-9.]+ sec' "$@" |
  sed -E 's/.*Test +#[0-9]+: ([^ ]+) \.+ +Passed +([0-9.]+) sec.*/\1 1 \2/' |
  sort -k1,1 -u
echo ---
