#!/usr/bin/env bash
# make test: the suites in four lanes that run side by side,
#
#   go    make test-go-race (go test -race ./..., the longest stage)
#   node  make build (the commands into bin/, once), then test-js,
#         test-interop, test-hosts, test-install, in turn (test-install
#         last: by then go test is about done, and its two release builds
#         have the CPU; beside go test it took three to six times as long,
#         and the run went past its budget)
#   side  make check-wasm (the committed module is what the sources
#         build; the tests use the committed one, so they need not wait
#         for the check), lint-go (gofmt, vet), fuzz-short,
#         test-go-unraced: what need not wait for the others, off the two
#         long lanes
#   net   make hosts-install: the real hosts' npm install, mostly network
#         (about 300 s of waiting for 40 s of CPU), done by the time the
#         node lane reaches test-hosts
#
# A lane goes on past a failed stage, so one run reports every stage.
#
# Why lanes: go test -race is CPU-bound, and much of the node lane waits
# (a browser painting, a TUI starting, an npm install on the network), so
# the two overlap well. Each line is printed as it comes, prefixed with its
# lane ("go   | ", "node | "), and each stage ends with a line naming it,
# its result and its time; the summary at the end gives every stage's
# result, wall-clock and CPU seconds (user+sys of the processes it waited
# for: what the stage costs a machine whatever else runs on it), and the
# exit status is non-zero when any stage failed. TEST_LANES=serial
# runs the same stages one after another, unprefixed (to read one stage's
# output alone, or on a machine that is short of memory).
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}

go_lane=(test-go-race)
node_lane=(build test-js test-interop test-hosts test-install)
side_lane=(check-wasm lint-go fuzz-short test-go-unraced)
net_lane=(hosts-install)
lanes=(go node side net)

if [ "${TEST_LANES:-}" = serial ]; then
	exec "$MAKE" --no-print-directory "${side_lane[@]}" "${net_lane[@]}" "${go_lane[@]}" "${node_lane[@]}"
fi

# lane NAME TARGETS...: the targets in turn, each line prefixed; one line
# per stage, "TARGET STATUS WALL CPU" (seconds; CPU is user+sys of every
# process the stage waited for), goes to $tmp/NAME.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lane() {
	local name=$1
	shift
	stages "$name" "$@" 2>&1 | sed -u "s/^/$(printf '%-4s' "$name") | /"
}
# The stages after build do not make it again (make -o build): the node
# lane's first stage made bin/ for the stages that use it.
stages() {
	local name=$1 target status t0 TIMEFORMAT='%R %U %S' real user sys keep
	shift
	for target; do
		status=0
		keep=(-o build)
		[ "$target" != build ] || keep=()
		t0=$(date +%s)
		{ time { "$MAKE" --no-print-directory "${keep[@]}" "$target" 2>&1 | tee "$tmp/$target.log"; } || status=$?; } 2>"$tmp/$name.time" </dev/null
		read -r real user sys <"$tmp/$name.time" || true
		echo "$target $status $(($(date +%s) - t0)) $(awk "BEGIN{printf \"%d\", $user + $sys}")" >>"$tmp/$name"
		echo "stage $target: $( ((status)) && echo "FAILED (exit $status)" || echo passed) in $(($(date +%s) - t0)) s"
	done
}

# failures TARGET: the lines of a failed stage's output that say what
# failed (at most 12), or its last lines when none does; after go test's
# timeout, the tests it names as still running (its FAIL line names only
# the package). Node's todo tests fail by design: a todo test's line
# (`✖ name (N ms) # why`) and the lines under it, indented deeper, are
# left out.
failures() {
	local log="$tmp/$1.log" lines
	lines=$(awk '
		/✖ .*\) # / { todo = match($0, /[^ ]/); next }
		todo && (/^[[:space:]]*$/ || match($0, /[^ ]/) > todo) { next }
		{ todo = 0 }
		/--- FAIL|^FAIL|^panic:|✖ |Error|not ok / && !/✖ failing tests:/ { print }
		/^[[:space:]]+running tests:/ { running = 1; next }
		running && /^[[:space:]]+Test/ { print "still running at the timeout: " $1 " " $2; next }
		{ running = 0 }
	' "$log" | tail -n 12) || true
	[ -n "$lines" ] || lines=$(tail -n 8 "$log")
	printf '%s\n' "$lines" | cut -c1-300 | sed "s/^/test: $1: /"
}

for name in "${lanes[@]}"; do
	targets="${name}_lane[@]"
	lane "$name" "${!targets}" &
done
wait

failed=0
echo
echo "test: stage            lane  result  wall s  CPU s"
for name in "${lanes[@]}"; do
	while read -r target status secs cpu; do
		result=ok
		if [ "$status" != 0 ]; then
			result=FAILED
			failed=1
		fi
		printf 'test: %-16s %-5s %-7s %6s %6s\n' "$target" "$name" "$result" "$secs" "$cpu"
	done <"$tmp/$name"
done
if ((failed)); then
	echo "test: FAILED: a failed stage's lines start with its lane (\"go   | \", \"node | \")"
	# What failed, last: a CI page often keeps only the end of the output.
	for name in "${lanes[@]}"; do
		while read -r target status _; do
			[ "$status" = 0 ] || failures "$target"
		done <"$tmp/$name"
	done
fi
exit $failed
