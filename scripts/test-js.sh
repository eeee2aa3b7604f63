#!/usr/bin/env bash
# The JS suites (make test-js): type-check the public declarations, then run
# with node --test the Node tests (the conformance corpus, the seam corpus
# testdata/seam through the JS seam and the readline provider, the helpers,
# the replies a provider hands back, the README's examples, load and fault
# tests, the schema truth test, and test/tsproject: the packed tarball in a
# strict TypeScript project without the DOM lib, compiling and running the
# README's examples) and the headless-Chromium tests (both corpora in a real
# browser; the DOM provider, test/dom.test.mjs; the answer page of the real
# askcore-stdio binary, test/page.test.mjs; the commands are the ones make
# build put in bin/, ASKCORE_BIN_DIR: run alone, a file builds its own).
# npm dependencies are installed from hostjs/package-lock.json when missing;
# no browser is ever downloaded (the Chromium test uses /usr/bin/chromium and
# skips with a message when it is absent).
set -euo pipefail
cd "$(dirname "$0")/../hostjs"

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "test-js: npm ci (hostjs)"
  npm ci --prefer-offline --no-audit --no-fund
fi

echo "test-js: tsc --noEmit"
./node_modules/.bin/tsc --noEmit -p tsconfig.json     # the declarations, exercised by test/types.ts
./node_modules/.bin/tsc --noEmit -p tsconfig.js.json  # the JS sources against their JSDoc
./node_modules/.bin/tsc --noEmit -p tsconfig.dom.json # the DOM provider, its JSDoc and dom.d.ts (test/dom-types.ts)
./node_modules/.bin/tsc --noEmit -p tsconfig.impl.json # the entry points' exports against index.d.ts (test/impl-types.ts)

[ -d ../testdata/seam ] || { echo "test-js: testdata/seam is missing" >&2; exit 1; }

echo "test-js: node --test"
export ASKCORE_BIN_DIR=$PWD/../bin
# Four files at a time (node's default is one fewer than the CPUs: one on
# two cores): most files wait on a browser or a child process, not the CPU
# (4 min 14 s of wall clock for 2 min 25 s of CPU at three; beside two
# loads, 424 s for 201 CPU s, the longest stage of the longest lane).
# The files that run longest go first (node starts them in the order given),
# so that none of them starts last and runs alone at the end.
slow_first=(test/inbox.test.mjs test/dom.test.mjs test/adapters-readme.test.mjs test/page.test.mjs)
rest=()
for f in test/*.test.mjs; do
  case " ${slow_first[*]} " in *" $f "*) ;; *) rest+=("$f") ;; esac
done
node --test --test-concurrency=4 --test-reporter=spec "${slow_first[@]}" "${rest[@]}"
