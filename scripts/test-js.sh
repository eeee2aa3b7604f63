#!/usr/bin/env bash
# The JS suites (make test-js): type-check the public declarations, then run
# the Node tests and the headless-Chromium conformance test with node --test.
# npm dependencies are installed from hostjs/package-lock.json when missing;
# no browser is ever downloaded (the Chromium test uses /usr/bin/chromium and
# skips with a message when it is absent).
set -euo pipefail
cd "$(dirname "$0")/../hostjs"

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "test-js: npm ci (hostjs)"
  npm ci --no-audit --no-fund
fi

echo "test-js: tsc --noEmit"
./node_modules/.bin/tsc --noEmit -p tsconfig.json     # the declarations, exercised by test/types.ts
./node_modules/.bin/tsc --noEmit -p tsconfig.js.json  # the JS sources against their JSDoc

echo "test-js: node --test"
node --test --test-reporter=spec test/*.test.mjs
