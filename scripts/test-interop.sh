#!/usr/bin/env bash
# The interop tests (make test-interop, after make build): the official
# TypeScript clients spawn the real binaries and answer their form
# elicitations.
#
#   scripts/test-interop.sh [acp] [mcp]     (default: both)
#
#   acp  @agentclientprotocol/sdk + zod (cmd/askcore-acp/interop) -> bin/askcore-acp
#   mcp  @modelcontextprotocol/sdk (cmd/askcore-mcp/interop) -> bin/askcore-mcp;
#        expected bytes come from the core through hostjs (the same
#        askcore.wasm)
#
# Each suite is every *.test.mjs of its interop directory: the forms, the
# previews and notes, and where there is one the answer page in headless
# Chromium (for a client without form elicitation).
#
# npm dependencies (pinned in each interop/package-lock.json) are installed
# with npm ci when missing or older than the lock file. ASKCORE_ACP_BIN and
# ASKCORE_MCP_BIN override the binaries; ASKCORE_ENGINE (wasm|native) is
# passed to them as --engine (default: the binaries' default, wasm).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export ASKCORE_ACP_BIN="${ASKCORE_ACP_BIN:-$root/bin/askcore-acp}"
export ASKCORE_MCP_BIN="${ASKCORE_MCP_BIN:-$root/bin/askcore-mcp}"

run() { # run PROTOCOL: one interop suite
  local proto=$1 bin upper
  upper=$(tr '[:lower:]' '[:upper:]' <<<"$proto")
  bin="ASKCORE_${upper}_BIN"
  bin=${!bin}
  if [ ! -x "$bin" ]; then
    echo "test-interop: $bin is missing; run make build first" >&2
    exit 1
  fi
  cd "$root/cmd/askcore-$proto/interop"
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "test-interop: npm ci (cmd/askcore-$proto/interop)"
    npm ci --prefer-offline --no-audit --no-fund
  fi
  echo "test-interop: node --test (TypeScript $upper client -> $bin)"
  local files=(*.test.mjs)
  # Two files at a time (node's default on two cores is one): they wait on
  # the binary and the browser far more than they compute.
  node --test --test-concurrency=2 --test-reporter=spec "${files[@]}"
}

(($#)) || set -- acp mcp
for proto in "$@"; do
  case $proto in
  acp | mcp) ;;
  *)
    echo "test-interop: unknown suite $proto (acp or mcp)" >&2
    exit 2
    ;;
  esac
done

# The suites run side by side, each line prefixed with its suite ("acp: ",
# "mcp: "): one after the other they took about three minutes of a loaded
# CI run's node lane for one of CPU. Each suite's exit status is kept.
pids=()
for proto in "$@"; do
  (run "$proto" 2>&1 | sed -u "s/^/$proto: /") &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit $status
