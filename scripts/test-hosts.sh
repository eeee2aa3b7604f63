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
# The hosts (about 1.2 GB) are installed once per lock file into a cache
# directory named by the hash of interop/hosts/package.json and
# package-lock.json (ASKCORE_HOSTS_DIR, default
# ~/.cache/askcore/hosts-HASH), and interop/hosts/node_modules links to it:
# every clone with this lock file on a machine shares one install, as the npm
# and Go caches are shared (a fresh clone spent 40 CPU s and five minutes
# of a loaded machine unpacking the same 1.2 GB again). A changed lock is
# a new directory. The install goes to a temporary directory renamed into
# place when it succeeded, so an interrupted one is never used. `npm
# install --no-save` rather than `npm ci`: opencode-ai lists platform
# packages for other systems that the lock file cannot hold, and npm ci
# refuses such a lock; the versions installed are the lock's all the same.
# A host whose command is missing is reported as SKIP. ASKCORE_MCP_BIN
# overrides the binary; ASKCORE_HOSTS_CONCURRENCY (default 4) is how many
# host runs go at once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/interop/hosts"
hash=$(cat package.json package-lock.json | sha256sum | cut -c1-16)
dir=${ASKCORE_HOSTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/askcore/hosts-$hash}
mkdir -p "$(dirname "$dir")"
# One install at a time, on the machine: make test starts this script's
# --install early (scripts/test-lanes.sh), the run itself may reach here
# before it is done, and another clone may be installing the same lock.
exec 9>"$dir.lock"
flock 9
if [ ! -d "$dir/node_modules" ]; then
  echo "test-hosts: npm install (interop/hosts: the four hosts, ~1.2 GB) into $dir"
  start=$(date +%s)
  tmp="$dir.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  cp package.json package-lock.json "$tmp/"
  if (cd "$tmp" && npm install --no-save --no-audit --no-fund); then
    mv "$tmp" "$dir"
  else
    rm -rf "$tmp"
    if [ "${CI:-}" = true ]; then
      echo "test-hosts: npm install failed" >&2
      exit 1
    fi
    echo "SKIP: test-hosts: npm install failed (no registry?); the hosts that are missing are skipped"
  fi
  echo "test-hosts: installed in $(($(date +%s) - start)) s"
fi
flock -u 9
if [ -d "$dir/node_modules" ] && [ "$(readlink node_modules 2>/dev/null)" != "$dir/node_modules" ]; then
  rm -rf node_modules
  ln -s "$dir/node_modules" node_modules
fi
[ "${1:-}" = --install ] && exit 0

export ASKCORE_MCP_BIN="${ASKCORE_MCP_BIN:-$root/bin/askcore-mcp}"
if [ ! -x "$ASKCORE_MCP_BIN" ]; then
  echo "test-hosts: $ASKCORE_MCP_BIN is missing; run make build first" >&2
  exit 1
fi
command -v tmux >/dev/null 2>&1 || echo "SKIP: tmux is not installed: the TUI tests are skipped (apt-get install tmux)"
echo "test-hosts: node --test (real hosts -> $ASKCORE_MCP_BIN)"
node --test --test-reporter=spec --test-timeout=600000 hosts.test.mjs hub.test.mjs
