#!/usr/bin/env bash
# make bench: builds the front doors and the bench programs, then prints
# the performance table (internal/bench) and the idle memory table of
# askcore-mcp and askcore-acp (internal/benchrss: alone, started together,
# after a 15 MB call). Extra arguments go to internal/bench, e.g.
# scripts/bench.sh -v -runs 9; BENCHRSS_ARGS to internal/benchrss (e.g.
# BENCHRSS_ARGS="-v -n 20"). Takes about four minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$GO" build -o "$tmp/askcore-stdio" ./cmd/stdio
"$GO" build -o "$tmp/askcore-acp" ./cmd/acp
"$GO" build -o "$tmp/askcore-mcp" ./cmd/mcp
"$GO" build -o "$tmp/bench" ./internal/bench
"$GO" build -o "$tmp/benchrss" ./internal/benchrss

if ! ./scripts/check-wasm.sh >/dev/null 2>&1; then
	echo "bench: note: wasm/askcore.wasm is not what the sources build (run make wasm); measuring the committed module" >&2
fi

"$tmp/bench" -stdio "$tmp/askcore-stdio" -acp "$tmp/askcore-acp" "$@"
echo
# shellcheck disable=SC2086 # BENCHRSS_ARGS is a list of flags
"$tmp/benchrss" -mcp "$tmp/askcore-mcp" -acp "$tmp/askcore-acp" ${BENCHRSS_ARGS:-}
