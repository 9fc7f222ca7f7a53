#!/usr/bin/env bash
# Checks (or with --fix, applies) .clang-format on every C file of the tree.
# Run by `make check-format` (part of `make check`) and `make format`. The
# style is pinned to Debian 12's clang-format 14: another version formats
# some constructs differently, so it is named in the output.
set -euo pipefail
cd "$(dirname "$0")/.."

CF=${CLANG_FORMAT:-}
if [[ -z $CF ]]; then
	CF=$(command -v clang-format-14 || command -v clang-format || true)
fi
if [[ -z $CF ]]; then
	echo "format: clang-format not found (Debian clang-format; make deps)" >&2
	exit 1
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' |
		grep -v '^build/' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
else
	mapfile -t files < <(find libcommon ipc fwd rib mgmt rtrmgr tests \
		-name '*.[ch]' | sort)
fi

if [[ ${1:-} == --fix ]]; then
	"$CF" -i "${files[@]}"
	echo "format: ${#files[@]} files formatted with $("$CF" --version)"
	exit 0
fi

drift=()
for f in "${files[@]}"; do
	"$CF" "$f" | cmp -s - "$f" || drift+=("$f")
done
if ((${#drift[@]})); then
	for f in "${drift[@]}"; do
		echo "format: $f differs from .clang-format:"
		"$CF" "$f" | diff -u "$f" - | head -20 | sed 's/^/    /'
	done
	echo "format: ${#drift[@]} of ${#files[@]} files drift; 'make format' fixes them ($("$CF" --version))"
	exit 1
fi
echo "format: ${#files[@]} files match .clang-format ($("$CF" --version))"
