#!/usr/bin/env bash
# Run every fuzz target in the module for a short while each.
#
#   ./scripts/fuzz.sh [DURATION]     (default 10s; e.g. 30s, 1m)
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
failed=()
ran=0

for pkg in $("$go" list ./...); do
  targets=$("$go" test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
  for target in $targets; do
    echo "fuzz: $pkg $target ($duration)"
    ran=$((ran + 1))
    if ! "$go" test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$duration"; then
      failed+=("$pkg $target")
    fi
  done
done

echo "fuzz: ran $ran target(s) for $duration each"
if ((${#failed[@]})); then
  printf 'fuzz: FAILED %s\n' "${failed[@]}"
  exit 1
fi
