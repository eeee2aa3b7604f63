#!/usr/bin/env bash
# The MCP interop test (make test-interop, after make build): the official
# TypeScript MCP client (@modelcontextprotocol/sdk, pinned in
# cmd/mcp/interop/package-lock.json) spawns the real bin/askcore-mcp and
# answers its form elicitations. Expected bytes come from the core through
# hostjs (the same askcore.wasm). npm dependencies are installed with npm ci
# when missing or older than the lock file.
#
# ASKCORE_MCP_BIN overrides the binary; ASKCORE_ENGINE (wasm|native) is
# passed to it as --engine (default: the binary's default, wasm).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/cmd/mcp/interop"

export ASKCORE_MCP_BIN="${ASKCORE_MCP_BIN:-$root/bin/askcore-mcp}"
if [ ! -x "$ASKCORE_MCP_BIN" ]; then
  echo "test-mcp-interop: $ASKCORE_MCP_BIN is missing; run make build first" >&2
  exit 1
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "test-mcp-interop: npm ci (cmd/mcp/interop)"
  npm ci --no-audit --no-fund
fi

echo "test-mcp-interop: node --test (TypeScript MCP client -> $ASKCORE_MCP_BIN)"
node --test --test-reporter=spec interop.test.mjs
