#!/bin/sh
# SPDX-License-Identifier: MIT
# The m68k vDSO series (tests/qemu/kernel/m68k-vdso/) as its maintainers
# would receive it: every patch passes the kernel's own
# scripts/checkpatch.pl --strict (from linux-source-6.12, the source the
# series applies to) with no error, warning or check but two that every
# vDSO port gets: FILE_PATH_CHANGES ("does MAINTAINERS need updating?"),
# printed for any patch adding a file (every file the series adds is under
# a path MAINTAINERS covers: checked below), and DEFINE_ARCH_HAS on
# `#define ARCH_HAS_SETUP_ADDITIONAL_PAGES`, the macro fs/binfmt_elf.c
# tests, which every architecture with a vDSO defines that way; and one
# the mm core forces: NEW_TYPEDEFS on mm_context_t, a struct now.  The cover letter
# names every patch, in order.  That the series applies and builds, and
# that its kernel boots and passes the vDSO selftests, is the QEMU matrix's
# m68k-vdso target.
. "$(dirname "$0")/lib.sh"

series=$top/tests/qemu/kernel/m68k-vdso
tarball=${VDSOKIT_LINUX_SOURCE_612:-/usr/src/linux-source-6.12.tar.xz}
cache=${VDSOKIT_CACHE:-$HOME/.cache/vdsokit}
patches=$(ls "$series"/00[0-9][1-9]-*.patch 2>/dev/null)
if [ -z "$patches" ]; then
	echo "1..1"
	echo "not ok 1 - no patches in $series"
	exit 1
fi

# ---- the cover letter ------------------------------------------------------
cover=$series/0000-cover-letter.patch
if [ -f "$cover" ]; then
	count=$(echo "$patches" | wc -l)
	missing=""
	for p in $patches; do
		subject=$(sed -n 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //p' "$p")
		grep -qF -- "$subject" "$cover" || missing="$missing ${p##*/}"
	done
	if [ -z "$missing" ] && grep -q "^Subject: \[PATCH 0/$count\]" "$cover"; then
		ok "the cover letter is 0/$count and names every patch"
	else
		not_ok "the cover letter is 0/$count and names every patch (missing:${missing:- none})"
	fi
else
	not_ok "a cover letter: $cover"
fi

# ---- checkpatch, from the source the series is for ------------------------
if ! have perl || [ ! -r "$tarball" ]; then
	for p in $patches; do
		skip "checkpatch --strict ${p##*/}: no perl or no $tarball (install linux-source-6.12)"
	done
	done_testing
	exit
fi
src=$cache/src/checkpatch-6.12
want=$(stat -c '%s %Y' "$tarball")
mkdir -p "$cache/src"
exec 9>"$cache/src/.checkpatch-6.12.lock"
flock 9
if [ "$(cat "$src/.stamp" 2>/dev/null)" != "$want" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' \
		'*/MAINTAINERS' 2>"$tmp/tar.err"
	if [ -f "$src/scripts/checkpatch.pl" ]; then
		echo "$want" >"$src/.stamp"
	fi
fi
flock -u 9
if [ ! -f "$src/scripts/checkpatch.pl" ]; then
	not_ok "scripts/checkpatch.pl from $tarball"
	diag <"$tmp/tar.err"
	done_testing
	exit
fi

for p in $patches; do
	name=${p##*/}
	perl "$src/scripts/checkpatch.pl" --strict --no-tree --no-color --show-types \
		--ignore FILE_PATH_CHANGES "$p" >"$tmp/cp.out" 2>&1
	# Every message but the one the interface forces on every architecture
	# with a vDSO: binfmt_elf tests `#ifdef ARCH_HAS_SETUP_ADDITIONAL_PAGES`.
	# And NEW_TYPEDEFS on mm_context_t in asm/mmu.h: the core mm code
	# names that type, so an architecture that keeps more than one word
	# per mm (here the vDSO's address) typedefs a struct, as arm64 does.
	grep -E -A1 '^(ERROR|WARNING|CHECK):' "$tmp/cp.out" |
		awk '/^(ERROR|WARNING|CHECK):/ { msg = $0; next }
			msg != "" { print msg "\t" $0; msg = "" }' |
		grep -vF "ERROR:DEFINE_ARCH_HAS: #define of 'ARCH_HAS_SETUP_ADDITIONAL_PAGES' is wrong" |
		grep -v '^WARNING:NEW_TYPEDEFS: do not add new typedefs.*FILE: arch/m68k/include/asm/mmu.h:' >"$tmp/cp.left"
	if grep -q '^total:' "$tmp/cp.out" && [ ! -s "$tmp/cp.left" ]; then
		ok "checkpatch --strict $name: $(grep '^total:' "$tmp/cp.out")$(grep -q DEFINE_ARCH_HAS "$tmp/cp.out" && echo ' (the one error: ARCH_HAS_SETUP_ADDITIONAL_PAGES, which binfmt_elf requires)')"
	else
		not_ok "checkpatch --strict $name"
		grep -E '^(ERROR|WARNING|CHECK|total|#[0-9]+:)' "$tmp/cp.out" | head -30 | diag
	fi
done

# ---- every added file under a path MAINTAINERS lists -----------------------
# (an F: pattern that is a directory prefix; enough for these paths)
sed -n 's/^F:[[:space:]]*//p' "$src/MAINTAINERS" | grep '/$' >"$tmp/dirs"
uncovered=""
# The files the series adds: a "+++ b/PATH" right after "--- /dev/null".
for f in $(awk '/^--- \/dev\/null/ { added = 1; next } added && /^\+\+\+ b\// { print substr($2, 3) } { added = 0 }' $patches | sort -u); do
	covered=0
	d=$f
	while [ "$d" != "${d%/*}" ]; do
		d=${d%/*}
		grep -qxF "$d/" "$tmp/dirs" && { covered=1; break; }
	done
	# The series itself may add the path to MAINTAINERS.
	[ $covered -eq 1 ] || grep -q "^+F:[[:space:]]*${f%/*}/" $patches || uncovered="$uncovered $f"
done
if [ -z "$uncovered" ]; then
	ok "every file the series adds is under a path MAINTAINERS lists (FILE_PATH_CHANGES left out above)"
else
	not_ok "files the series adds outside every MAINTAINERS path:$uncovered"
fi
done_testing
