#!/usr/bin/env bash
# The ACP interop test (make test-interop, after make build): the official
# TypeScript ACP client (@agentclientprotocol/sdk + zod, pinned in
# cmd/acp/interop/package-lock.json) spawns the real bin/askcore-acp and
# answers its form elicitations. npm dependencies are installed with npm ci
# when missing or older than the lock file.
#
# ASKCORE_ACP_BIN overrides the binary; ASKCORE_ENGINE (wasm|native) is
# passed to it as --engine (default: the binary's default, wasm).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/cmd/acp/interop"

export ASKCORE_ACP_BIN="${ASKCORE_ACP_BIN:-$root/bin/askcore-acp}"
if [ ! -x "$ASKCORE_ACP_BIN" ]; then
  echo "test-interop: $ASKCORE_ACP_BIN is missing; run make build first" >&2
  exit 1
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "test-interop: npm ci (cmd/acp/interop)"
  npm ci --no-audit --no-fund
fi

echo "test-interop: node --test (TypeScript ACP client -> $ASKCORE_ACP_BIN)"
node --test --test-reporter=spec interop.test.mjs
