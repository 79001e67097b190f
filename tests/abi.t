#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library's ABI cannot change by accident:
#   - libabigail compares build/lib/libvdsokit.so.0 with the committed
#     baseline tests/abi/libvdsokit.so.0.abi (x86_64): any difference fails,
#     compatible or not.  An intended change updates the baseline in the same
#     commit (`make abi-baseline`) and, when incompatible, the soname or the
#     version node (and the data symbol's name, for vdsokit__fastpath);
#   - the data the header inlines is taken by programs as a COPY relocation
#     of its size: a program built for another layout must be refused by the
#     loader, not run with its globals overwritten.
. "$(dirname "$0")/lib.sh"

so=$build/lib/libvdsokit.so.0
baseline=$top/tests/abi/libvdsokit.so.0.abi

# --- the baseline ---------------------------------------------------------
if [ "$(uname -m)" != x86_64 ]; then
	skip "abidiff: the baseline is x86_64's (this is $(uname -m))"
elif ! command -v abidiff >/dev/null 2>&1; then
	skip "abidiff: not installed (Debian package abigail-tools)"
elif [ ! -f "$so" ]; then
	not_ok "abidiff: $so not built"
else
	abidiff "$baseline" "$so" --headers-dir2 "$top/include" >"$tmp/abidiff.out" 2>&1
	st=$?
	case $st in
	0) ok "abidiff: libvdsokit.so.0 has the committed baseline's ABI" ;;
	*)
		not_ok "abidiff: libvdsokit.so.0 differs from tests/abi/libvdsokit.so.0.abi (abidiff exit $st: 4 changed, 8 incompatible)"
		diag <"$tmp/abidiff.out"
		echo "# intended? update the baseline (make abi-baseline) in the same commit, and for an" \
			"incompatible change the soname or the version node too" ;;
	esac
fi

# --- a program built for another layout of the inlined data ---------------
# A stand-in for the library an older header was built against: it exports
# the data symbol under the old name and node, as 0.2.0 did.
cc=${CC:-cc}
cat >"$tmp/old.map" <<'MAP'
VDSOKIT_0.2 { global: vdsokit__fast; vdsokit_clock_gettime; local: *; };
MAP
cat >"$tmp/old.c" <<'C'
struct { char bytes[16]; } vdsokit__fast;
int vdsokit_clock_gettime(int clock, void *ts) { (void)clock; (void)ts; return 0; }
C
cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
extern struct { char bytes[16]; } vdsokit__fast;
int vdsokit_clock_gettime(int clock, void *ts);
int main(void) { char ts[16]; printf("%d %d\n", vdsokit__fast.bytes[0], vdsokit_clock_gettime(1, ts)); return 0; }
C
mkdir -p "$tmp/old"
if "$cc" -shared -fPIC -o "$tmp/old/libvdsokit.so.0" -Wl,-soname,libvdsokit.so.0 \
	-Wl,--version-script="$tmp/old.map" "$tmp/old.c" 2>"$tmp/cc.err" &&
	"$cc" -o "$tmp/prog" "$tmp/prog.c" -L"$tmp/old" -l:libvdsokit.so.0 2>>"$tmp/cc.err"; then
	LD_LIBRARY_PATH=$build/lib "$tmp/prog" >"$tmp/prog.out" 2>"$tmp/prog.err"
	st=$?
	if [ $st -ne 0 ] && grep -q "vdsokit__fast" "$tmp/prog.err"; then
		ok "a program built for the old layout (vdsokit__fast@VDSOKIT_0.2) is refused by the loader: $(head -1 "$tmp/prog.err" | sed 's/^.*: //')"
	else
		not_ok "a program built for the old layout ran against this library (exit $st)"
		diag <"$tmp/prog.err"
	fi
	if readelf -rW "$tmp/prog" | grep -q "COPY.*vdsokit__fast"; then
		ok "(the program did take a COPY relocation of the data, as the test means)"
	else
		skip "this compiler took no COPY relocation of the data: nothing to overwrite"
	fi
else
	skip "cannot build the old-layout stand-in with $cc"
	skip "COPY relocation"
	diag <"$tmp/cc.err"
fi

# The current header's programs name the layout they were built for.
cat >"$tmp/new.c" <<'C'
#include "vdsokit.h"
int main(void) { struct vdsokit_timespec ts; return vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts) != 0; }
C
if "$cc" -I"$top/include" -o "$tmp/new" "$tmp/new.c" -L"$build/lib" -l:libvdsokit.so.0 2>"$tmp/cc.err"; then
	if readelf -W --dyn-syms "$tmp/new" | grep -q "vdsokit__fast_v1@VDSOKIT_0.2"; then
		ok "a program inlining the fast path binds vdsokit__fast_v1@VDSOKIT_0.2"
	elif readelf -W --dyn-syms "$tmp/new" | grep -q "vdsokit__fast"; then
		not_ok "a program inlining the fast path binds $(readelf -W --dyn-syms "$tmp/new" | grep -o 'vdsokit__fast[^ ]*' | head -1)"
	else
		skip "this header inlines no fast path here"
	fi
else
	not_ok "a program against the header and the shared library does not build"
	diag <"$tmp/cc.err"
fi
done_testing
