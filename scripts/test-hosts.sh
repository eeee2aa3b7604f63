#!/usr/bin/env bash
# The real-host interop suite (make test-hosts, after make build): Claude
# Code, Codex, Gemini CLI and opencode from npm (pinned in
# interop/hosts/package-lock.json) drive bin/askcore-mcp against fake model
# servers on 127.0.0.1; the TUIs run in tmux. See interop/hosts/README.md.
#
#   scripts/test-hosts.sh                 run the suite
#   scripts/test-hosts.sh --install       only install the hosts (make hosts-install)
#   ASKCORE_HOSTS_RECORD=1 scripts/test-hosts.sh
#                                         also print what each host did (JSON
#                                         lines starting with RECORD) and keep
#                                         each run's directory
#
# The hosts are installed into interop/hosts/node_modules when missing or
# older than the lock file (about 1.2 GB). `npm install --no-save` rather
# than `npm ci`: opencode-ai lists platform packages for other systems that
# the lock file cannot hold, and npm ci refuses such a lock; the versions
# installed are the lock's all the same. A host whose command is missing is
# reported as SKIP. ASKCORE_MCP_BIN overrides the binary;
# ASKCORE_HOSTS_CONCURRENCY (default 4) is how many host runs go at once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/interop/hosts"
# One install at a time: make test starts this script's --install early
# (scripts/test-lanes.sh), and the run itself may reach here before it is done.
exec 9>.install.lock
flock 9
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "test-hosts: npm install (interop/hosts: the four hosts, ~1.2 GB)"
  start=$(date +%s)
  if ! npm install --no-save --no-audit --no-fund; then
    if [ "${CI:-}" = true ]; then
      echo "test-hosts: npm install failed" >&2
      exit 1
    fi
    echo "SKIP: test-hosts: npm install failed (no registry?); the hosts that are missing are skipped"
  fi
  echo "test-hosts: installed in $(($(date +%s) - start)) s"
fi
flock -u 9
[ "${1:-}" = --install ] && exit 0

export ASKCORE_MCP_BIN="${ASKCORE_MCP_BIN:-$root/bin/askcore-mcp}"
if [ ! -x "$ASKCORE_MCP_BIN" ]; then
  echo "test-hosts: $ASKCORE_MCP_BIN is missing; run make build first" >&2
  exit 1
fi
command -v tmux >/dev/null 2>&1 || echo "SKIP: tmux is not installed: the TUI tests are skipped (apt-get install tmux)"
echo "test-hosts: node --test (real hosts -> $ASKCORE_MCP_BIN)"
node --test --test-reporter=spec --test-timeout=600000 hosts.test.mjs hub.test.mjs
