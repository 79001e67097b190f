#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/qemu/build-kernel's tidying of extracted kernel sources: the tree of
# a source version stays while a kernel built from it lacks its current
# stamp (missing, or left from older fragments or patches: that kernel is
# about to be rebuilt from it), and goes once all of them have it; a tree of
# another version always goes.  Nothing is built: `build-kernel --tidy`
# runs only the cleanup a build ends with, in a made-up cache.
. "$(dirname "$0")/lib.sh"
bk=$top/tests/qemu/build-kernel
VDSOKIT_CACHE=$tmp/cache
export VDSOKIT_CACHE

if ! stamp=$("$bk" --stamp riscv64 2>"$tmp/err"); then
	echo "1..0 # SKIP no stamp for riscv64 here: $(cat "$tmp/err")"
	exit 0
fi
version=${stamp%%+*}
siblings="riscv64 ppc64 ppc32 m68k-vdso m68k-vdso-off m68k-vdso-amiga030 y2038"

cache() { # STALE_KERNEL|none|missing:KERNEL — a cache of current stamps but one
	rm -rf "$tmp/cache"
	mkdir -p "$tmp/cache/src/linux-$version" "$tmp/cache/src/linux-0.0.1"
	for a in $siblings; do
		mkdir -p "$tmp/cache/kernels/$a"
		"$bk" --stamp "$a" >"$tmp/cache/kernels/$a/source-version"
	done
	case $1 in
	none) ;;
	missing:*) rm "$tmp/cache/kernels/${1#missing:}/source-version" ;;
	*) echo "$version+$1-0000000000000000+config-0000000000000000" >"$tmp/cache/kernels/$1/source-version" ;;
	esac
}
tidy() { "$bk" --tidy riscv64 2>"$tmp/tidy.err"; }

cache m68k-vdso
tidy
[ -d "$tmp/cache/src/linux-$version" ] && [ ! -e "$tmp/cache/src/linux-0.0.1" ] &&
	ok "a sibling's stamp from older patches and fragments (same source version): the tree stays, another version's goes" ||
	{ not_ok "a sibling's stale stamp keeps the tree"; ls "$tmp/cache/src" | diag; diag <"$tmp/tidy.err"; }

cache missing:ppc32
tidy
[ -d "$tmp/cache/src/linux-$version" ] &&
	ok "a sibling not built yet: the tree stays" ||
	{ not_ok "a sibling not built yet: the tree stays"; diag <"$tmp/tidy.err"; }

cache none
tidy
[ ! -e "$tmp/cache/src/linux-$version" ] && [ ! -e "$tmp/cache/src/linux-0.0.1" ] &&
	ok "every kernel of $version has its current stamp: its tree goes" ||
	{ not_ok "every kernel of $version has its current stamp: its tree goes"; ls "$tmp/cache/src" | diag; diag <"$tmp/tidy.err"; }
done_testing
