#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library's ABI cannot change by accident:
#   - libabigail compares build/lib/libvdsokit.so.1 with the committed
#     baseline tests/abi/libvdsokit.so.1.abi (x86_64), written with source
#     locations so that --headers-dir2 keeps the public header's types in
#     view: any difference fails, compatible or not.  An intended change
#     updates the baseline in the same commit (`make abi-baseline`) and,
#     when incompatible, the soname (and the route table's name, for a
#     change of vdsokit__routes_v2);
#   - the guard is shown catching what it is for, in scratch copies of the
#     tree: two fields of the inlined route table swapped, two fields of a
#     caller-allocated struct swapped, and a caller-allocated struct grown
#     (which the compiler refuses first: its size is a _Static_assert);
#   - the data the header inlines is taken by programs as a COPY relocation
#     of its size: a program built for another layout must be refused by the
#     loader, not run with its globals overwritten.
. "$(dirname "$0")/lib.sh"

so=$build/lib/libvdsokit.so.1
baseline=$top/tests/abi/libvdsokit.so.1.abi

# abidiff_of SO: abidiff's exit status against the baseline, as make check runs it.
abidiff_of() {
	abidiff "$baseline" "$1" --headers-dir2 "$(dirname "$1")/../../include" >"$tmp/abidiff.out" 2>&1
}

# scratch NAME: a copy of what builds the library, in $tmp/NAME.
scratch() {
	rm -rf "$tmp/$1"
	mkdir -p "$tmp/$1"
	(cd "$top" && cp -r src include Makefile "$tmp/$1/") && mkdir -p "$tmp/$1/cli"
}

# edit FILE PYTHON-REPLACEMENTS...: old/new pairs, each old present exactly once.
edit() {
	python3 - "$@" <<'PY'
import sys
path, pairs = sys.argv[1], sys.argv[2:]
text = open(path).read()
for old, new in zip(pairs[::2], pairs[1::2]):
    if text.count(old) != 1:
        sys.exit("edit: %r is not in %s exactly once" % (old, path))
    text = text.replace(old, new)
open(path, "w").write(text)
PY
}

# changed NAME WHAT: builds the scratch copy NAME and says whether abidiff fails on it.
changed() {
	if ! make -s -C "$tmp/$1" BUILD="$tmp/$1/build" lib >"$tmp/$1.build" 2>&1; then
		not_ok "abidiff guard, $2: the scratch copy does not build"
		diag <"$tmp/$1.build"
		return
	fi
	abidiff_of "$tmp/$1/build/lib/libvdsokit.so.1"
	st=$?
	if [ $st -ne 0 ]; then
		ok "abidiff guard, $2: caught (abidiff exit $st)"
	else
		not_ok "abidiff guard, $2: abidiff exit 0, the change went through"
		diag <"$tmp/abidiff.out"
	fi
}

if [ "$(uname -m)" != x86_64 ]; then
	skip "abidiff: the baseline is x86_64's (this is $(uname -m))"
elif ! command -v abidiff >/dev/null 2>&1; then
	skip "abidiff: not installed (Debian package abigail-tools)"
elif [ ! -f "$so" ]; then
	not_ok "abidiff: $so not built"
else
	abidiff_of "$so"
	st=$?
	case $st in
	0) ok "abidiff: libvdsokit.so.1 has the committed baseline's ABI" ;;
	*)
		not_ok "abidiff: libvdsokit.so.1 differs from tests/abi/libvdsokit.so.1.abi (abidiff exit $st: 4 changed, 8 incompatible)"
		diag <"$tmp/abidiff.out"
		echo "# intended? update the baseline (make abi-baseline) in the same commit, and for an" \
			"incompatible change the soname too" ;;
	esac

	scratch routes
	edit "$tmp/routes/include/vdsokit.h" \
		'struct vdsokit__clock_route gettime, getres;' 'struct vdsokit__clock_route getres, gettime;'
	changed routes "two fields of the inlined route table (vdsokit__routes_v2) swapped"

	scratch route-info
	edit "$tmp/route-info/include/vdsokit.h" \
		'	const char *symbol;       /* vDSO symbol used, or NULL                  */
	const char *version;      /* its version node, or NULL if unversioned   */' \
		'	const char *version;      /* its version node, or NULL if unversioned   */
	const char *symbol;       /* vDSO symbol used, or NULL                  */'
	changed route-info "two fields of the caller-allocated struct vdsokit_route_info swapped"

	# Grown: the compiler refuses it first, then abidiff, with the assertion taken out.
	scratch grown
	edit "$tmp/grown/include/vdsokit.h" \
		'	uint64_t reserved[8];    /* 0                                         */
};' '	uint64_t reserved[8];    /* 0                                         */
	uint64_t added_later;
};'
	if make -s -C "$tmp/grown" BUILD="$tmp/grown/build" lib >"$tmp/grown.build" 2>&1; then
		not_ok "a grown struct vdsokit_image compiles: its size is not asserted"
	elif grep -q "struct vdsokit_image keeps its size" "$tmp/grown.build"; then
		ok "a grown struct vdsokit_image does not compile: its size is a _Static_assert"
	else
		not_ok "a grown struct vdsokit_image fails to build for another reason"
		diag <"$tmp/grown.build"
	fi
	edit "$tmp/grown/src/image.c" \
		'_Static_assert(sizeof(struct vdsokit_image) ==' '_Static_assert(1 ||sizeof(struct vdsokit_image) =='
	changed grown "the caller-allocated struct vdsokit_image grown by a field (its assertion taken out)"
fi

# --- a program built for another layout of the inlined data ---------------
# A stand-in for a library of another layout: it exports the route table
# under another name (an older layout's), in a node of its own.
cc=${CC:-cc}
cat >"$tmp/old.map" <<'MAP'
VDSOKIT_0.4 { global: vdsokit__routes_v1; vdsokit_clock_gettime; local: *; };
MAP
cat >"$tmp/old.c" <<'C'
struct { char bytes[16]; } vdsokit__routes_v1;
int vdsokit_clock_gettime(int clock, void *ts) { (void)clock; (void)ts; return 0; }
C
cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
extern struct { char bytes[16]; } vdsokit__routes_v1;
int vdsokit_clock_gettime(int clock, void *ts);
int main(void) { char ts[16]; printf("%d %d\n", vdsokit__routes_v1.bytes[0], vdsokit_clock_gettime(1, ts)); return 0; }
C
mkdir -p "$tmp/old"
if "$cc" -shared -fPIC -o "$tmp/old/libvdsokit.so.1" -Wl,-soname,libvdsokit.so.1 \
	-Wl,--version-script="$tmp/old.map" "$tmp/old.c" 2>"$tmp/cc.err" &&
	"$cc" -o "$tmp/prog" "$tmp/prog.c" -L"$tmp/old" -l:libvdsokit.so.1 2>>"$tmp/cc.err"; then
	LD_LIBRARY_PATH=$build/lib "$tmp/prog" >"$tmp/prog.out" 2>"$tmp/prog.err"
	st=$?
	if [ $st -ne 0 ] && grep -q "vdsokit__routes_v1\|VDSOKIT_0.4" "$tmp/prog.err"; then
		ok "a program built for another layout (vdsokit__routes_v1) is refused by the loader: $(head -1 "$tmp/prog.err" | sed 's/^.*: //')"
	else
		not_ok "a program built for another layout ran against this library (exit $st)"
		diag <"$tmp/prog.err"
	fi
	if readelf -rW "$tmp/prog" | grep -q "COPY.*vdsokit__routes"; then
		ok "(the program did take a COPY relocation of the data, as the test means)"
	else
		skip "this compiler took no COPY relocation of the data: nothing to overwrite"
	fi
else
	skip "cannot build the other-layout stand-in with $cc"
	skip "COPY relocation"
	diag <"$tmp/cc.err"
fi

# The current header's programs name the layout they were built for.
cat >"$tmp/new.c" <<'C'
#include "vdsokit.h"
int main(void) { struct vdsokit_timespec ts; return vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts) != 0; }
C
if "$cc" -I"$top/include" -o "$tmp/new" "$tmp/new.c" -L"$build/lib" -l:libvdsokit.so.1 2>"$tmp/cc.err"; then
	if readelf -W --dyn-syms "$tmp/new" | grep -q "vdsokit__routes_v2@VDSOKIT_0.5"; then
		ok "a program inlining the calls binds vdsokit__routes_v2@VDSOKIT_0.5"
	elif readelf -W --dyn-syms "$tmp/new" | grep -q "vdsokit__routes"; then
		not_ok "a program inlining the calls binds $(readelf -W --dyn-syms "$tmp/new" | grep -o 'vdsokit__routes[^ ]*' | head -1)"
	else
		skip "this header inlines no call here"
	fi
else
	not_ok "a program against the header and the shared library does not build"
	diag <"$tmp/cc.err"
fi
done_testing
