#!/usr/bin/env bash
# tests/integration/test_install.sh: make install and make uninstall
# (docs/install.md), in a copy of the tree (its build/ copied too, so only
# what holds a path is rebuilt, and this tree's binaries stay as they are):
# with PREFIX=/usr and with the default /usr/local, into a DESTDIR each.
# Every file is where it should be with its mode and nothing else is
# installed; no installed file holds the build tree's path or the other
# prefix; the unit's ExecStart and the boot config's binaries are the
# installed ones and systemd-analyze verify takes the unit; the installed
# binaries run and have the installed paths compiled in; every page passes
# groff -ww, `man -M` finds tern.conf, and the pages name every option of
# each binary's --help and every key of the boot config's parser; a changed
# configuration is kept by install (the new one beside it as .dist) and by
# uninstall; uninstall leaves no other file and removes only tern's own
# directories; a relative DESTDIR works; a bad directory is refused.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/check.sh
source "$root/tests/lib/check.sh"
for t in groff man objcopy tar; do
	if ! command -v $t >/dev/null; then
		echo "test_install: needs $t (scripts/deps.sh): skipped"
		echo "install: 0 passed, 0 failed"
		exit 0
	fi
done
tmp=$(mktemp -d /tmp/tern-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 3' INT TERM
src=$tmp/src
mkdir -p "$src"
# the make of make check must not reach into ours
unset MAKEFLAGS MFLAGS MAKELEVEL PREFIX DESTDIR SYSCONFDIR

# ---- the copy: sources as they are now (committed or not), and build/ ----
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$root" && git ls-files -co --exclude-standard | grep -v '^build/' |
		while read -r f; do [[ -f $f ]] && echo "$f"; done) >"$tmp/files"
else
	(cd "$root" && find . -path ./build -prune -o -type f -print) >"$tmp/files"
fi
tar -C "$root" -cf - -T "$tmp/files" | tar -C "$src" -xf -
(cd "$root" && tar -cf - --ignore-failed-read build/obj build/lib build/bin \
	build/gen build/etc build/man build/.cflags build/.paths 2>/dev/null) |
	tar -C "$src" -xf -
check "the tree copied" test -f "$src/Makefile" -a -f "$src/man/tern.conf.5.in"

mk() { nice -n 19 make -C "$src" -j1 -s "$@" >>"$tmp/make.out" 2>&1; }
# the docs installed: README.md and docs/*.md
docs=(README.md)
for d in "$src"/docs/*.md; do docs+=("$(basename "$d")"); done
pages=(man1/ternsh.1 man5/tern.conf.5 man5/tern-rtrmgr.conf.5
	man8/tern-rtrmgr.8 man8/tern-mgmt.8 man8/tern-rib.8 man8/tern-fwd.8
	man8/tern-bgp.8)
daemons=(tern-rtrmgr tern-mgmt tern-rib tern-fwd tern-bgp)

is_elf() { [[ $(head -c 4 "$1" | tr -d '\0') == $'\x7fELF' ]]; }
# the text a file holds: an ELF's without its debug sections (those name
# the build directory by design; Debian strips them into -dbgsym)
text_of() {
	if is_elf "$1"; then
		objcopy --strip-debug "$1" "$tmp/stripped" && cat "$tmp/stripped"
	else
		cat "$1"
	fi
}

# check_tree DESTDIR PREFIX SYSCONFDIR UNITDIR OTHER: the installed tree;
# OTHER is an extended regex of what the other prefix would have put in.
check_tree() {
	local d=$1 p=$2 etc=$3 unitdir=$4 other=$5 f want=() n
	local sbin=$p/sbin share=$p/share
	for f in "${daemons[@]}"; do want+=("$sbin/$f:755"); done
	want+=("$p/bin/ternsh:755" "$etc/tern/tern-rtrmgr.conf:644"
		"$etc/logrotate.d/tern:644" "$unitdir/tern.service:644"
		"$share/bash-completion/completions/ternsh:644")
	for f in "${docs[@]}"; do want+=("$share/doc/tern/$f:644"); done
	for f in "${pages[@]}"; do want+=("$share/man/$f:644"); done
	local missing=() badmode=()
	for f in "${want[@]}"; do
		if [[ ! -f $d${f%:*} ]]; then
			missing+=("${f%:*}")
		elif [[ $(stat -c %a "$d${f%:*}") != "${f##*:}" ]]; then
			badmode+=("${f%:*}")
		fi
	done
	check "$p: every file installed (${#want[@]}) ${missing[*]}" test ${#missing[@]} -eq 0
	check "$p: modes 0755 (binaries), 0644 ${badmode[*]}" test ${#badmode[@]} -eq 0
	n=$(find "$d" -type f | wc -l)
	check "$p: nothing else installed ($n files)" test "$n" -eq ${#want[@]}

	# no build tree path, no other prefix, no @NAME@ left
	local tree=() wrong=() subst=()
	while read -r f; do
		text_of "$f" >"$tmp/text"
		grep -qaF -e "$src" -e "$root" "$tmp/text" && tree+=("${f#"$d"}")
		# the docs describe every layout: not theirs to say
		[[ $f == "$d$share/doc/"* ]] && continue
		grep -qaE -- "$other" "$tmp/text" && wrong+=("${f#"$d"}")
		is_elf "$f" || ! grep -qE '@[A-Z_]+@' "$f" || subst+=("${f#"$d"}")
	done < <(find "$d" -type f)
	check "$p: no file holds the build tree's path ${tree[*]}" test ${#tree[@]} -eq 0
	check "$p: no file holds the other prefix's paths ${wrong[*]}" test ${#wrong[@]} -eq 0
	check "$p: no @NAME@ left ${subst[*]}" test ${#subst[@]} -eq 0

	# the unit starts the installed binary with the installed config
	local unit=$d$unitdir/tern.service exec doc
	exec=$(sed -n 's/^ExecStart=//p' "$unit")
	check "$p: ExecStart=$exec" test "$exec" = \
		"$sbin/tern-rtrmgr -c $etc/tern/tern-rtrmgr.conf --foreground"
	check "$p: ExecStart's binary is installed" test -x "$d${exec%% *}"
	doc=$(sed -n 's|^Documentation=.*file://\([^ ]*\).*|\1|p' "$unit")
	check "$p: Documentation=file://$doc is installed" test -f "$d$doc"
	# systemd takes the unit: its binary (under DESTDIR here) and its
	# man: pages (in DESTDIR's MANDIR) found
	if command -v systemd-analyze >/dev/null; then
		sed "s|^ExecStart=|ExecStart=$d|" "$unit" >"$tmp/tern.service"
		check "$p: systemd-analyze verify: $(MANPATH=$d$share/man systemd-analyze verify "$tmp/tern.service" 2>&1 | head -3)" \
			env MANPATH="$d$share/man" systemd-analyze verify "$tmp/tern.service"
	fi
	# the boot config's binaries are the installed ones, every one of them
	local bins bad=()
	bins=$(sed -n 's/^[[:space:]]*binary \(.*\);.*/\1/p' "$d$etc/tern/tern-rtrmgr.conf")
	for f in $bins; do
		[[ $f == "$sbin/"* && -x $d$f ]] || bad+=("$f")
	done
	check "$p: boot config's binaries in $sbin ($(wc -w <<<"$bins"))" \
		test ${#bad[@]} -eq 0 -a "$(wc -w <<<"$bins")" -eq 4
	check "$p: boot config's rundir /run/tern" \
		grep -q '^rundir /run/tern;' "$d$etc/tern/tern-rtrmgr.conf"
	check "$p: logrotate's /run/tern/*.log" grep -q '^/run/tern/\*\.log {' "$d$etc/logrotate.d/tern"

	# the installed binaries run, with the installed paths compiled in
	local help
	help=$("$d$sbin/tern-rtrmgr" --help 2>&1)
	check "$p: tern-rtrmgr --help: default -c $etc/tern/tern-rtrmgr.conf" \
		has "$help" "default $etc/tern/tern-rtrmgr.conf)"
	check "$p: tern-mgmt --help: store /var/lib/tern/config" \
		has "$("$d$sbin/tern-mgmt" --help 2>&1)" "(default /var/lib/tern/config)"
	for f in "${daemons[@]}"; do
		"$d$sbin/$f" --version >/dev/null 2>&1 || bad+=("$f")
	done
	"$d$p/bin/ternsh" --help >/dev/null 2>&1 || bad+=(ternsh)
	check "$p: every installed binary runs (--version, --help) ${bad[*]}" test ${#bad[@]} -eq 0

	# the pages: groff's warnings are failures; man finds them
	local warn=()
	for f in "${pages[@]}"; do
		LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$d$share/man/$f" >"$tmp/groff" 2>&1
		[[ -s $tmp/groff ]] && warn+=("$f: $(head -1 "$tmp/groff")")
	done
	check "$p: groff -man -ww: no warning on ${#pages[@]} pages ${warn[*]}" test ${#warn[@]} -eq 0
	check "$p: man -M finds tern.conf(5)" test "$(man -M "$d$share/man" -w tern.conf 2>/dev/null)" = \
		"$d$share/man/man5/tern.conf.5"
	check "$p: man -M shows ternsh(1) with its commands" \
		bash -c "MANWIDTH=120 man -M '$d$share/man' ternsh 2>/dev/null | grep -q 'show route'"
}

# ---- PREFIX=/usr (Debian's) ----------------------------------------------------
d1=$tmp/d1
check "make install PREFIX=/usr SYSCONFDIR=/etc DESTDIR=..." mk install PREFIX=/usr SYSCONFDIR=/etc DESTDIR="$d1"
check_tree "$d1" /usr /etc /lib/systemd/system '/usr/local'

# each page names every option of its binary's --help
bad=()
for b in "${daemons[@]}" ternsh; do
	bin=$d1/usr/sbin/$b
	[[ $b == ternsh ]] && bin=$d1/usr/bin/ternsh
	page=$(ls "$d1"/usr/share/man/man*/"$b".[18])
	for o in $("$bin" --help 2>&1 | grep -oE '(^|[[ ])-(-[a-z][a-z-]*|c)' | tr -d ' [' | sort -u); do
		grep -qF -- "\\fB${o//-/\\-}\\fP" "$page" || bad+=("$b $o")
	done
done
check "every option of the binaries' --help is in their pages ${bad[*]}" test ${#bad[@]} -eq 0
# tern-rtrmgr.conf(5) names every key of rtrmgr's parser
keys=$(sed -n '/^static const char \*const gkeys\[\]/,/NULL}/p; /static const char \*const keys\[\] = {"binary"/,/NULL}/p' \
	"$src/rtrmgr/rtm_config.c" | grep -oE '"[a-z-]+"' | tr -d '"')
bad=()
for k in $keys; do
	grep -qF -- "\\fB${k//-/\\-}\\fP" "$d1/usr/share/man/man5/tern-rtrmgr.conf.5" || bad+=("$k")
done
check "tern-rtrmgr.conf(5) has every key of the parser ($(wc -w <<<"$keys")) ${bad[*]}" \
	test ${#bad[@]} -eq 0 -a "$(wc -w <<<"$keys")" -ge 20
# tern.conf(5): one entry per schema row (the unit test checks each row)
rows=$(grep -c '^    \[MGMT_S_[A-Z_0-9]*\] = {' "$src/mgmt/mgmt_schema.c")
tps=$(sed -n '/^\.SH STATEMENTS/,/^\.SH FILES/p' "$d1/usr/share/man/man5/tern.conf.5" | grep -c '^\.TP')
check "tern.conf(5): an entry for each schema row but the root ($tps of $rows)" test "$tps" -eq $((rows - 1))

# a changed configuration is the operator's: kept, the new one beside it
conf=$d1/etc/tern/tern-rtrmgr.conf
echo "# the operator's" >>"$conf"
: >"$tmp/make.out"
check "make install again" mk install PREFIX=/usr SYSCONFDIR=/etc DESTDIR="$d1"
check "... the changed boot config kept" grep -q "^# the operator's" "$conf"
check "... the new one as .dist" cmp -s "$src/build/etc/tern-rtrmgr.conf" "$conf.dist"
check "... and it says so" grep -q "tern-rtrmgr.conf: kept" "$tmp/make.out"
check "make uninstall PREFIX=/usr SYSCONFDIR=/etc" mk uninstall PREFIX=/usr SYSCONFDIR=/etc DESTDIR="$d1"
left=$(cd "$d1" && find . -type f | sort | tr '\n' ' ')
check "uninstall: only the changed boot config is left ($left)" test "$left" = "./etc/tern/tern-rtrmgr.conf "
check "... and it says so" grep -q "tern-rtrmgr.conf: kept (changed" "$tmp/make.out"
check "... tern's doc directory removed" test ! -e "$d1/usr/share/doc/tern"
check "... shared directories left (usr/sbin)" test -d "$d1/usr/sbin"

# ---- the default prefix, /usr/local -------------------------------------------------
d2=$tmp/d2
check "make install DESTDIR=... (default prefix)" mk install DESTDIR="$d2"
check_tree "$d2" /usr/local /usr/local/etc /usr/local/lib/systemd/system \
	'(^|[^A-Za-z0-9_./-])/(etc/tern|usr/sbin/tern|usr/bin/ternsh|usr/share/(doc|man)|lib/systemd)'
n_inst=$(find "$d2" -type f | wc -l)
touch "$d2/usr/local/sbin/not-tern"
check "make uninstall (default prefix)" mk uninstall DESTDIR="$d2"
left=$(cd "$d2" && find . -type f | sort | tr '\n' ' ')
check "uninstall: only a file not tern's is left ($left)" test "$left" = "./usr/local/sbin/not-tern "
check "... tern's own directories removed" test ! -e "$d2/usr/local/etc/tern" -a ! -e "$d2/usr/local/share/doc/tern"

# a relative DESTDIR, as debian/rules gives it (under build/: logrotate.d is
# not a make dependency file)
check "make install DESTDIR=build/stage (relative)" mk install PREFIX=/usr SYSCONFDIR=/etc DESTDIR=build/stage
n=$(find "$src/build/stage" -type f | wc -l)
check "... $n files, as with an absolute one" test "$n" -eq "$n_inst"
check "... and uninstalled" mk uninstall PREFIX=/usr SYSCONFDIR=/etc DESTDIR=build/stage
check "... none left" test "$(find "$src/build/stage" -type f | wc -l)" -eq 0

# ---- refused: nothing made ------------------------------------------------------------
out=$(make -C "$src" -s install PREFIX=usr DESTDIR="$tmp/d3" 2>&1)
check "PREFIX=usr refused: '$out'" has "$out" "PREFIX='usr': must be an absolute path"
out=$(make -C "$src" -s install "SYSCONFDIR=/etc/a b" DESTDIR="$tmp/d3" 2>&1)
check "a blank refused" has "$out" "must be one absolute path without blanks"
check "... nothing installed" test ! -e "$tmp/d3"

[[ $fail -eq 0 ]] || sed 's/^/  make: /' "$tmp/make.out" | tail -20
check_summary install
