#!/usr/bin/env bash
# Builds the Debian package of tern (make deb; docs/packaging.md) and runs
# lintian on it. dpkg-buildpackage runs in a copy of the tree under
# OUT/src/tern-VERSION (the files git knows and the new ones it does not
# ignore, as they are in the working tree), so that its `make clean` never
# touches this tree's build/; the .deb, .ddeb, .buildinfo and .changes are
# copied to OUT and the copy removed (kept when the build fails). Fails when the package does not build or lintian reports
# an error; lintian's warnings are printed (and listed in docs/packaging.md).
# Usage: deb-build.sh OUT
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: deb-build.sh OUT}

for t in dpkg-buildpackage dpkg-parsechangelog dh lintian fakeroot; do
	command -v "$t" >/dev/null || {
		echo "deb: $t missing (scripts/deps.sh --deb installs it)" >&2
		exit 1
	}
done

# The package's upstream version is the binaries' (libcommon/lc_daemon.h):
# a changelog that drifts from it fails here, not in an operator's apt.
version=$(dpkg-parsechangelog -S Version)
upstream=${version%-*}
tern_version=$(sed -n 's/^#define TERN_VERSION[[:space:]]*"\(.*\)"/\1/p' libcommon/lc_daemon.h)
if [[ $upstream != "$tern_version" ]]; then
	echo "deb: debian/changelog has $version, the binaries say $tern_version" \
	    "(libcommon/lc_daemon.h): add a changelog entry (dch -v $tern_version-1)" >&2
	exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

rm -rf "$out/src"
src=$out/src/tern-$upstream
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# tracked files still present and untracked ones not ignored
	git ls-files -z -c -o --exclude-standard |
	    while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done |
	    tar -c --null -T - -f - | tar -x -C "$src" -f -
else
	tar -c --exclude=./build --exclude=./.git -f - . | tar -x -C "$src" -f -
fi

echo "deb: dpkg-buildpackage -us -uc -b in $src"
start=$SECONDS
log=$out/src/build.log
par=${DEB_BUILD_OPTIONS:-parallel=$(nproc 2>/dev/null || echo 1)}
if ! (cd "$src" && DEB_BUILD_OPTIONS=$par dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "deb: dpkg-buildpackage failed (whole log: $log)" >&2
	exit 1
fi
echo "deb: built in $((SECONDS - start)) s (log: $out/build.log)"

rm -f "$out"/tern_* "$out"/tern-dbgsym_*
files=()
for f in "$out/src/tern_${version}_$arch.deb" "$out/src/tern-dbgsym_${version}_$arch.deb" \
    "$out/src/tern-dbgsym_${version}_$arch.ddeb" "$out/src/tern_${version}_$arch.buildinfo" \
    "$out/src/tern_${version}_$arch.changes"; do
	[[ -e $f ]] || continue
	cp "$f" "$out/"
	files+=("$out/${f##*/}")
done
printf 'deb: %s\n' "${files[@]}"
deb=$out/tern_${version}_$arch.deb
changes=$out/tern_${version}_$arch.changes
[[ -f $deb && -f $changes ]] || {
	echo "deb: $deb or $changes was not made" >&2
	exit 1
}
cp "$log" "$out/build.log"
rm -rf "$out/src"
dpkg-deb --info "$deb" | sed -n '/Package:/,$p' | sed 's/^/deb:   /'

# lintian on the .changes checks it and every package it lists (the .deb and
# its dbgsym); the .deb again on its own, as an operator would. Errors fail;
# warnings and the rest are printed.
rc=0
for f in "$changes" "$deb"; do
	echo "deb: lintian ${f##*/}"
	lintian --fail-on error --display-info --tag-display-limit 0 "$f" | sed 's/^/deb:   /' ||
	    rc=1
	((PIPESTATUS[0] == 0)) || rc=1
done
if ((rc != 0)); then
	echo "deb: lintian reports errors (above)" >&2
	exit 1
fi
echo "deb: lintian: no errors"
