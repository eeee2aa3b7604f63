#!/usr/bin/env bash
# make bench: builds the front doors and the bench programs, then prints
# the performance table (internal/bench/engine) and the idle memory table of
# askcore-mcp and askcore-acp (internal/bench/rss: alone, started together,
# after a 15 MB call, after a question and the engine's idle release).
# Extra arguments go to internal/bench/engine, e.g.
# scripts/bench.sh -v -runs 9; BENCHRSS_ARGS to internal/bench/rss (e.g.
# BENCHRSS_ARGS="-v -n 20"); then the answer page's figures in headless
# Chromium (hostjs/bench/page.mjs: warm time to a question, transfer size,
# idle RSS; skipped when Chromium or hostjs/node_modules is missing;
# PAGEBENCH_ARGS, e.g. "-v --runs 15"); then askcore-hub (internal/bench/hub:
# 200 agents x 20 asks on SQLite and on two PostgreSQL replicas, idle RSS
# with 10,000 pending asks; HUBBENCH_ARGS, e.g. "-agents 50"; PostgreSQL
# from ASKCORE_TEST_POSTGRES or a throwaway cluster when initdb is
# installed). Takes about six minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$GO" build -o "$tmp/askcore-stdio" ./cmd/askcore-stdio
"$GO" build -o "$tmp/askcore-acp" ./cmd/askcore-acp
"$GO" build -o "$tmp/askcore-mcp" ./cmd/askcore-mcp
"$GO" build -o "$tmp/bench" ./internal/bench/engine
"$GO" build -o "$tmp/benchrss" ./internal/bench/rss
"$GO" build -o "$tmp/pagebench" ./internal/bench/page
"$GO" build -o "$tmp/askcore-hub" ./cmd/askcore-hub
"$GO" build -o "$tmp/hubbench" ./internal/bench/hub

if ! ./scripts/check-wasm.sh >/dev/null 2>&1; then
	echo "bench: note: wasm/askcore.wasm or its gzip is not what the sources build (run make wasm); measuring the committed module" >&2
fi

"$tmp/bench" -stdio "$tmp/askcore-stdio" -acp "$tmp/askcore-acp" -mcp "$tmp/askcore-mcp" "$@"
echo
# shellcheck disable=SC2086 # BENCHRSS_ARGS is a list of flags
"$tmp/benchrss" -mcp "$tmp/askcore-mcp" -acp "$tmp/askcore-acp" ${BENCHRSS_ARGS:-}
echo
chromium=${ASKCORE_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
	echo "bench: the answer page: skipped: no Chromium at $chromium (apt-get install -y chromium, or set ASKCORE_CHROMIUM)"
elif [ ! -d hostjs/node_modules/playwright-core ]; then
	echo "bench: the answer page: skipped: no hostjs/node_modules/playwright-core (run npm ci in hostjs)"
else
	# shellcheck disable=SC2086 # PAGEBENCH_ARGS is a list of flags
	node hostjs/bench/page.mjs --bin "$tmp/pagebench" ${PAGEBENCH_ARGS:-}
fi
echo
# shellcheck disable=SC2086 # HUBBENCH_ARGS is a list of flags
"$tmp/hubbench" -hub "$tmp/askcore-hub" ${HUBBENCH_ARGS:-}
