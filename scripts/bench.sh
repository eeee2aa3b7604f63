#!/usr/bin/env bash
# make bench: builds the two front doors and the bench program, then prints
# the performance table (internal/bench). Extra arguments go to the program,
# e.g. scripts/bench.sh -v -runs 9. Takes about two minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$GO" build -o "$tmp/askcore-stdio" ./cmd/stdio
"$GO" build -o "$tmp/askcore-acp" ./cmd/acp
"$GO" build -o "$tmp/bench" ./internal/bench

if ! ./scripts/check-wasm.sh >/dev/null 2>&1; then
	echo "bench: note: wasm/askcore.wasm is not what the sources build (run make wasm); measuring the committed module" >&2
fi

"$tmp/bench" -stdio "$tmp/askcore-stdio" -acp "$tmp/askcore-acp" "$@"
