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
# FUZZ_SECONDS bounds the time of each target without a deadline: the run
# gets the whole count, and when fuzzing (not the build, not the seed
# corpus) has gone on for FUZZ_SECONDS the test binary, the fuzzing
# coordinator, is interrupted (SIGINT), which it treats as a clean stop:
# go test ends with its own verdict for the package ("ok", or "FAIL" and a
# crasher written), which is the run's. Only the coordinator: it stops its
# workers itself (it closes their input). A SIGINT to the whole process
# group, as a terminal's Ctrl-C sends, reaches a worker too, which exits 0
# mid-call; when that exit is seen before the coordinator's own SIGINT,
# go 1.26 records the input under way as a crasher ("fuzzing process hung
# or terminated unexpectedly: <nil>", internal/fuzz/worker.go), which a
# loaded machine made happen (a fresh-clone CI run, 2026-12-07).
# On an idle machine a target does its whole count; on a loaded one fewer
# executions in the same time.
#
# FUZZ_WORKERS is go test's -parallel, the fuzzing workers (default: one a
# CPU). make fuzz-short sets 1: its few seconds a target are a smoke run
# beside the other lanes, and two workers spent twice the CPU (12 s a
# target on two cores) in the same seconds.
#
# Targets are discovered, not listed: every `func FuzzXxx` in a _test.go
# file is run, one at a time (a fuzz run takes one target), so targets
# added later are picked up. They are found in the sources rather than with
# `go test -list` in every package, which would build every test binary of
# the module only to list four packages' targets. Their seed corpora (f.Add
# and testdata/fuzz/FuzzXxx/) already run in a plain `go test`; this script
# explores beyond them. A failure leaves the crashing input under that
# package's testdata/fuzz/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

budget=${1:-10s}
go=${GO:-go}
seconds=${FUZZ_SECONDS:-}
flags=() # more of go test's flags
case $budget in
  *x) flags=(-fuzzminimizetime "${FUZZ_MINIMIZE:-1000x}") ;;
esac
if [ -n "${FUZZ_WORKERS:-}" ]; then
  flags+=(-parallel "$FUZZ_WORKERS")
fi
failed=()
ran=0
log=$(mktemp)
running= # the process group of the go test under way, if any
# The go test runs in its own process group: a Ctrl-C or a kill of this
# script must reach it too.
trap 'if [ -n "$running" ]; then kill -INT -- "-$running" 2>/dev/null || true; fi; rm -f "$log"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fuzz DIR TARGET: one run; false when go test says it failed.
fuzz() {
  local args=("$1" -run '^$' -fuzz "^${2}\$" -fuzztime "$budget" ${flags[@]+"${flags[@]}"})
  if [ -z "$seconds" ]; then
    "$go" test "${args[@]}"
    return
  fi
  # Its own process group (job control on): a script's background jobs
  # otherwise start with SIGINT ignored, and the trap above stops the
  # whole group.
  set -m
  "$go" test "${args[@]}" >"$log" 2>&1 &
  local pid=$! rc=0 waited=0 stopped=
  set +m
  running=$pid
  tail -f --pid="$pid" -n +1 "$log" &
  # The clock starts when go test reports it is fuzzing (after the build
  # and the seed corpus); then one check a second, FUZZ_SECONDS of them.
  while kill -0 "$pid" 2>/dev/null; do
    # A test binary that printed its verdict (PASS: the whole count done)
    # is exiting: an interrupt now would only kill it on its way out.
    if grep -q '^PASS$' "$log"; then
      break
    fi
    if grep -q 'now fuzzing with' "$log"; then
      if ((waited >= seconds)); then
        # The test binary is go test's child (the build is over); the
        # workers are its children.
        pkill -INT -P "$pid" && stopped=1
        break
      fi
      waited=$((waited + 1))
    fi
    sleep 1
  done
  wait "$pid" || rc=$?
  running=
  wait # the tail
  if [ -n "$stopped" ]; then
    # A "PASS" from the test binary is its verdict: the interrupt can reach
    # a binary that has just finished its count and printed it, and is
    # leaving without its handler (go test then says "signal: interrupt"
    # and FAIL for a clean run).
    if ((rc != 0)) && ! grep -q -- '--- FAIL' "$log" && grep -q '^PASS$' "$log"; then
      rc=0
    fi
    if ((rc == 0)); then
      echo "fuzz: $2 stopped after about ${seconds}s of fuzzing"
    fi
  fi
  return "$rc"
}

# dir<TAB>target for every fuzz target, sorted (vendored and npm trees skipped).
targets=$(grep -rE --include='*_test.go' --exclude-dir=node_modules --exclude-dir=vendor --exclude-dir=testdata \
  -o '^func Fuzz[A-Za-z0-9_]*\(' . | sed -E 's#^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1\t\2#' | sort -u)

while IFS=$'\t' read -r dir target; do
  [ -n "$target" ] || continue
  echo "fuzz: $dir $target ($budget${seconds:+, at most about ${seconds}s of fuzzing})"
  ran=$((ran + 1))
  fuzz "$dir" "$target" || failed+=("$dir $target")
done <<<"$targets"

echo "fuzz: ran $ran target(s), $budget each${seconds:+ or about ${seconds}s of fuzzing}"
if ((ran == 0)); then
  echo "fuzz: no fuzz target found" >&2
  exit 1
fi
if ((${#failed[@]})); then
  printf 'fuzz: FAILED %s\n' "${failed[@]}"
  exit 1
fi
