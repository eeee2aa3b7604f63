#!/usr/bin/env bash
# Run every fuzz target in the module for a short while each.
#
#   ./scripts/fuzz.sh [BUDGET]     (default 10s; e.g. 30s, 1m, or 100000x)
#
# BUDGET is go test's -fuzztime: a duration, or a number of executions
# (100000x). Prefer a count where a failure must mean a crasher (make
# fuzz-short): with Go 1.26 a duration can end a clean run with a bare
# "context deadline exceeded" and no crasher written: at the deadline the
# coordinator's stop() compares the timed-out ctx's error with its child
# fuzzCtx's before the cancellation has reached the child
# (internal/fuzz/fuzz.go; golang/go#75804). CPU contention makes that
# window likely. A count has no deadline to race. With a count, the
# minimization of each new input is bounded by a count too (FUZZ_MINIMIZE,
# default 1000x): go test's default, 60s per input, is otherwise not cut
# short by the budget, and a short run would spend minutes minimizing.
#
# Targets are discovered, not listed: every `func FuzzXxx` that
# `go test -list` reports in any package is run, one at a time (a fuzz run
# takes one target), so targets added later (hostgo, ...) are picked up.
# Their seed corpora (f.Add and testdata/fuzz/FuzzXxx/) already run in a
# plain `go test`; this script explores beyond them. A failure leaves the
# crashing input under that package's testdata/fuzz/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-10s}
go=${GO:-go}
minimize=()
case $duration in
  *x) minimize=(-fuzzminimizetime "${FUZZ_MINIMIZE:-1000x}") ;;
esac
failed=()
ran=0

for pkg in $("$go" list ./...); do
  targets=$("$go" test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
  for target in $targets; do
    echo "fuzz: $pkg $target ($duration)"
    ran=$((ran + 1))
    if ! "$go" test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" ${minimize[@]+"${minimize[@]}"}; then
      failed+=("$pkg $target")
    fi
  done
done

echo "fuzz: ran $ran target(s) for $duration each"
if ((${#failed[@]})); then
  printf 'fuzz: FAILED %s\n' "${failed[@]}"
  exit 1
fi
