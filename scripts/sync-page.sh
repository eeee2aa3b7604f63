#!/usr/bin/env bash
# The answer page (package answerpage) serves the JS host from files
# embedded in the Go binary; go:embed cannot reach ../hostjs, so the files
# the page needs are copied into answerpage/static/host. askcore.wasm is not
# copied: the page serves wasm.Binary, the module every Go host embeds.
#
#   scripts/sync-page.sh           fail when a copy differs from hostjs/ (make check-wasm)
#   scripts/sync-page.sh --update  copy them (make wasm)
#
# answerpage's TestHostFilesCurrent checks the same in go test.
set -euo pipefail
cd "$(dirname "$0")/.."

dst=answerpage/static/host
files=(browser.js dom.js dom.css)
for f in hostjs/lib/*.js; do files+=("lib/$(basename "$f")"); done

if [ "${1:-}" = "--update" ]; then
	rm -rf "$dst"
	mkdir -p "$dst/lib"
	for f in "${files[@]}"; do cp "hostjs/$f" "$dst/$f"; done
	echo "sync-page: copied ${#files[@]} files of hostjs/ into $dst"
	exit 0
fi

fail=0
for f in "${files[@]}"; do
	if ! cmp -s "hostjs/$f" "$dst/$f"; then
		echo "sync-page: $dst/$f differs from hostjs/$f: run make wasm" >&2
		fail=1
	fi
done
for f in $(cd "$dst" && find . -type f | sed 's|^\./||'); do
	[ -f "hostjs/$f" ] || { echo "sync-page: $dst/$f has no hostjs/$f: run make wasm" >&2; fail=1; }
done
[ $fail = 0 ] && echo "sync-page: ok, $dst is hostjs/'s"
exit $fail
