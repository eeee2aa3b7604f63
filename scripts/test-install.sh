#!/usr/bin/env bash
# askcore as a user installs it (make test-install):
#
#   1. make dist PLATFORMS=linux/amd64 twice: the same bytes both times
#      (archives, SHA256SUMS, npm tarballs), and sha256sum -c passes;
#   2. the archive's four binaries report the release's version
#      (COMMAND VERSION (COMMIT)), go version -m shows the build settings,
#      and none weighs more than 20 MB (20,000,000 bytes: the release's
#      target; the hub is the heaviest, BENCHMARKS.md "Weight");
#   3. interop/install/install.test.mjs: the npm tarballs published to a
#      local registry (verdaccio, on 127.0.0.1, no uplinks: nothing leaves
#      the machine), then in a fresh HOME npx -y @askcore/mcp speaks MCP,
#      @askcore/cli installs the four commands, and Claude Code (from
#      interop/hosts) registered with docs/install.md's line answers
#      through it; docs/install.md's hub block runs on the archive.
#
# verdaccio is installed from npm into a cache directory
# (ASKCORE_VERDACCIO_DIR, default ~/.cache/askcore/verdaccio-VERSION) when
# missing; without it (no registry) the npm part is a SKIP, except in CI.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
MAKE=${MAKE:-make}
start=$(date +%s)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=${VERSION:-$(git describe --tags --always)}

echo "test-install: make dist PLATFORMS=linux/amd64 VERSION=$version, twice"
t0=$(date +%s)
"$MAKE" --no-print-directory dist PLATFORMS=linux/amd64 VERSION="$version"
echo "test-install: first make dist in $(($(date +%s) - t0)) s"
mv dist "$tmp/first"
t0=$(date +%s)
"$MAKE" --no-print-directory dist PLATFORMS=linux/amd64 VERSION="$version"
echo "test-install: second make dist in $(($(date +%s) - t0)) s"
if ! diff -r "$tmp/first" dist; then
  echo "test-install: FAIL: two make dist runs of one commit gave different bytes" >&2
  exit 1
fi
for f in dist/*.tar.gz dist/*.zip dist/npm/*.tgz; do
  [ ! -e "$f" ] || echo "test-install: $(stat -c %s "$f") bytes ${f#dist/}"
done
(cd dist && sha256sum -c SHA256SUMS)

# The binaries: the version and commit the release was built with.
commit=$(git rev-parse --short=12 HEAD)
[ -z "$(git status --porcelain --untracked-files=no)" ] || commit="$commit-dirty"
tar -xzf "dist/askcore_${version}_linux_amd64.tar.gz" -C "$tmp"
for c in askcore-stdio askcore-acp askcore-mcp askcore-hub; do
  bin="$tmp/askcore_${version}_linux_amd64/$c"
  got=$("$bin" --version)
  if [ "$got" != "$c $version ($commit)" ]; then
    echo "test-install: FAIL: $c --version printed \"$got\", want \"$c $version ($commit)\"" >&2
    exit 1
  fi
  # go version -m records no -ldflags under -trimpath: it shows the build
  # settings that make the bytes reproducible, and the version is the one
  # --version printed above.
  info=$(go version -m "$bin")
  for want in "build	-trimpath=true" "build	CGO_ENABLED=0" "path	github.com/askcore/askcore/cmd/$c"; do
    grep -qF -- "$want" <<<"$info" || {
      echo "test-install: FAIL: go version -m $c does not show \"$want\"" >&2
      exit 1
    }
  done
  size=$(stat -c %s "$bin")
  echo "test-install: $got ($size bytes)"
  if ((size > 20000000)); then
    echo "test-install: FAIL: $c is $size bytes, over the release's 20 MB (20,000,000 bytes; RATIONALE.md \"Weight\" says what else could go)" >&2
    exit 1
  fi
done

# verdaccio, from npm, into a cache directory.
verdaccio_version=6.8.0 # the last that runs on Node 20
dir=${ASKCORE_VERDACCIO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/askcore/verdaccio-$verdaccio_version}
if [ ! -x "$dir/node_modules/.bin/verdaccio" ]; then
  echo "test-install: npm install verdaccio@$verdaccio_version into $dir"
  mkdir -p "$dir"
  if ! npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "verdaccio@$verdaccio_version"; then
    if [ "${CI:-}" = true ]; then
      echo "test-install: npm install verdaccio failed" >&2
      exit 1
    fi
    echo "SKIP: test-install: npm install verdaccio failed (no registry?): the npm install tests are skipped"
  fi
fi
export ASKCORE_VERDACCIO="$dir/node_modules/.bin/verdaccio"
export ASKCORE_DIST="$root/dist" ASKCORE_VERSION="$version" ASKCORE_COMMIT="$commit"
node --test --test-reporter=spec --test-timeout=600000 interop/install/install.test.mjs
echo "test-install: done in $(($(date +%s) - start)) s"
