#!/usr/bin/env bash
# make test after check-wasm: the suites in two lanes that run side by side,
#
#   go    make test-go (gofmt, vet, go test -race ./...)
#   node  make test-js, test-interop, test-hosts, fuzz-short, in turn
#
# A lane goes on past a failed stage (make --keep-going), so one run reports
# every stage.
#
# Why lanes: go test -race is CPU-bound, and much of the node lane waits
# (a browser painting, a TUI starting, an npm install on the network), so
# the two overlap well. Each line is printed as it comes, prefixed with its
# lane ("go   | ", "node | "); the summary at the end names the lanes that
# failed, and the exit status is non-zero when any did. TEST_LANES=serial
# runs the same stages one after another, unprefixed (to read one stage's
# output alone, or on a machine that is short of memory).
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}

go_lane=(test-go)
node_lane=(test-js test-interop test-hosts fuzz-short)

if [ "${TEST_LANES:-}" = serial ]; then
	exec "$MAKE" --no-print-directory "${go_lane[@]}" "${node_lane[@]}"
fi

# lane NAME TARGETS...: the targets in turn, each line prefixed; the
# lane's status and time go to $tmp/NAME.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lane() {
	local name=$1 start status=0
	shift
	start=$(date +%s)
	"$MAKE" --no-print-directory --keep-going "$@" 2>&1 | sed -u "s/^/$(printf '%-4s' "$name") | /" || status=$?
	echo "$status $(($(date +%s) - start))" >"$tmp/$name"
}

lane go "${go_lane[@]}" &
lane node "${node_lane[@]}" &
wait

failed=0
echo
for name in go node; do
	read -r status secs <"$tmp/$name"
	if [ "$status" = 0 ]; then
		echo "test: lane $name passed in ${secs} s"
	else
		echo "test: lane $name FAILED (exit $status) after ${secs} s: its lines start with \"$(printf '%-4s' "$name") | \""
		failed=1
	fi
done
exit $failed
