#!/bin/sh
# SPDX-License-Identifier: MIT
# The shared library's ABI cannot change by accident:
#   - libabigail compares build/lib/libvdsokit.so.1 with the committed
#     baseline tests/abi/libvdsokit.so.1.abi (x86_64), written with source
#     locations so that --headers-dir2 keeps the public header's types in
#     view, and --harmless, so that a type changed for one of the same
#     size is a difference too: any difference fails, compatible or not,
#     and so does a library without DWARF (abidiff would compare its
#     symbols alone) or one abidiff cannot read.  An intended change
#     updates the baseline in the same commit (`make abi-baseline`) and,
#     when incompatible, the soname (and the route table's name, for a
#     change of vdsokit__routes_v3);
#   - the guard is shown catching what it is for, in scratch copies of the
#     tree: two fields of the inlined route table swapped (and the same
#     built without -g), a member int64_t -> long (which an i686 build
#     refuses), a parameter unsigned -> int, two fields of a
#     caller-allocated struct swapped, and a caller-allocated struct grown;
#     the layouts are _Static_asserts too (src/internal.h), which refuse
#     the swaps and the growth first;
#   - the header's enumerators and numeric macros, which abidiff cannot
#     see, are compared with the committed list tests/abi/constants.txt,
#     shown failing on the rseq flags swapped and an image error inserted;
#   - the data the header inlines is taken by programs as a COPY relocation
#     of its size: a program built for another layout must be refused by the
#     loader, not run with its globals overwritten.
. "$(dirname "$0")/lib.sh"

so=$build/lib/libvdsokit.so.1
baseline=$top/tests/abi/libvdsokit.so.1.abi

# verdict SO: $verdict, what abidiff says of SO against the baseline, as make
# check runs it: same, changed (exit bit 4 or 8), error (bit 1 or 2: a file
# it cannot read, say) or no-dwarf.  --harmless: a change abidiff deems
# harmless is one too, a member's or a parameter's type of the same size
# (int64_t to long, unsigned to int), which ILP32 ABIs or callers may not
# see the same.  Without DWARF abidiff compares the symbols alone, and
# passes any change of a type.
verdict() {
	abidiff --harmless "$baseline" "$1" --headers-dir2 "$(dirname "$1")/../../include" >"$tmp/abidiff.out" 2>&1
	st=$?
	if [ $((st & 3)) -ne 0 ]; then
		verdict=error
	elif ! readelf -SW "$1" | grep -q ' \.debug_info '; then
		verdict=no-dwarf
	elif [ $((st & 12)) -ne 0 ]; then
		verdict=changed
	else
		verdict=same
	fi
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

# build NAME [MAKE-ARGS...]: builds the scratch copy NAME's library (with
# DWARF unless told otherwise: not the OPT a make check was given).
build() {
	_name=$1
	shift
	make -s -C "$tmp/$_name" BUILD="$tmp/$_name/build" OPT="-O2 -g" "$@" lib >"$tmp/$_name.build" 2>&1
}

# changed NAME WHAT: builds the scratch copy NAME and says whether abidiff fails on it.
changed() {
	if ! build "$1"; then
		not_ok "abidiff guard, $2: the scratch copy does not build"
		diag <"$tmp/$1.build"
		return
	fi
	verdict "$tmp/$1/build/lib/libvdsokit.so.1"
	case $verdict in
	changed) ok "abidiff guard, $2: caught (abidiff exit $st)" ;;
	same)
		not_ok "abidiff guard, $2: abidiff exit 0, the change went through"
		diag <"$tmp/abidiff.out" ;;
	*)
		not_ok "abidiff guard, $2: not a verdict on the change ($verdict, abidiff exit $st)"
		diag <"$tmp/abidiff.out" ;;
	esac
}

# refused NAME WHAT MESSAGE [MAKE-ARGS...]: the scratch copy NAME does not
# compile, on the layout assertion (src/internal.h) saying MESSAGE.
refused() {
	_name=$1 _what=$2 _msg=$3
	shift 3
	if build "$_name" "$@"; then
		not_ok "$_what compiles: its layout is not asserted"
	elif grep -q "$_msg" "$tmp/$_name.build"; then
		ok "$_what does not compile: \"$_msg\""
	else
		not_ok "$_what fails to build for another reason"
		diag <"$tmp/$_name.build"
	fi
}

# unasserted NAME: the scratch copy NAME without its layout assertions, for abidiff to see.
unasserted() {
	edit "$tmp/$1/src/internal.h" \
		'_Static_assert(sizeof(type) ==' '_Static_assert(1 || sizeof(type) ==' \
		'_Static_assert(offsetof(type, field) ==' '_Static_assert(1 || offsetof(type, field) =='
}

if [ "$(uname -m)" != x86_64 ]; then
	skip "abidiff: the baseline is x86_64's (this is $(uname -m))"
elif ! command -v abidiff >/dev/null 2>&1; then
	skip "abidiff: not installed (Debian package abigail-tools)"
elif [ ! -f "$so" ]; then
	not_ok "abidiff: $so not built"
else
	verdict "$so"
	case $verdict in
	same) ok "abidiff: libvdsokit.so.1 has the committed baseline's ABI" ;;
	changed)
		not_ok "abidiff: libvdsokit.so.1 differs from tests/abi/libvdsokit.so.1.abi (abidiff exit $st: 4 changed, 8 incompatible)"
		diag <"$tmp/abidiff.out"
		echo "# intended? update the baseline (make abi-baseline) in the same commit, and for an" \
			"incompatible change the soname too" ;;
	no-dwarf)
		not_ok "abidiff: $so has no DWARF (built without -g: an OPT given to make replaces the Makefile's -O2 -g); abidiff would compare its symbols alone" ;;
	*)
		not_ok "abidiff: cannot compare $so (abidiff exit $st)"
		diag <"$tmp/abidiff.out" ;;
	esac

	# What is not a verdict on a change does not count as one.
	head -c 4096 "$so" >"$tmp/truncated.so"
	verdict "$tmp/truncated.so"
	if [ "$verdict" = error ]; then
		ok "abidiff guard: a truncated library is an error (abidiff exit $st), not a caught change"
	else
		not_ok "abidiff guard: a truncated library is taken as $verdict (abidiff exit $st)"
	fi

	scratch routes
	edit "$tmp/routes/include/vdsokit.h" \
		'int (*gettime[' 'int (*swapped_[' 'int (*getres[' 'int (*gettime[' 'int (*swapped_[' 'int (*getres['
	refused routes "a route table with two fields swapped" "struct vdsokit__routes_v3.getres keeps its offset"
	unasserted routes
	changed routes "two fields of the inlined route table (vdsokit__routes_v3) swapped (its assertions taken out)"

	# The same library without -g: abidiff passes it, the guard does not.
	rm -rf "$tmp/nodwarf" && cp -r "$tmp/routes" "$tmp/nodwarf" && rm -rf "$tmp/nodwarf/build"
	if build nodwarf OPT=-O2; then
		verdict "$tmp/nodwarf/build/lib/libvdsokit.so.1"
		if [ "$verdict" = no-dwarf ]; then
			ok "abidiff guard: a library built without -g is refused (abidiff exit $st alone: symbols only)"
		else
			not_ok "abidiff guard: a library built without -g is taken as $verdict (abidiff exit $st)"
		fi
	else
		not_ok "abidiff guard: the scratch copy without -g does not build"
		diag <"$tmp/nodwarf.build"
	fi

	# Changes of the same size, which plain abidiff deems harmless.
	scratch timespec-long
	edit "$tmp/timespec-long/include/vdsokit.h" '	int64_t tv_nsec;' '	long tv_nsec;'
	changed timespec-long "struct vdsokit_timespec.tv_nsec int64_t -> long (smaller on ILP32)"
	# ... which any ILP32 build refuses: the layouts are _Static_asserts
	# (src/internal.h).  i686 aligns 64-bit fields to 4, powerpc to 8 (the
	# shrunk field hides in the padding: its own size is asserted).
	for triple in i686-linux-gnu powerpc-linux-gnu; do
		if command -v $triple-gcc-12 >/dev/null 2>&1; then
			refused timespec-long "$triple: a struct vdsokit_timespec with a long tv_nsec" \
				"struct vdsokit_timespec.tv_nsec keeps its size" BUILD="$tmp/timespec-long/$triple" \
				CC=$triple-gcc-12 AR=$triple-ar
		else
			skip "$triple: no $triple-gcc-12 to build the scratch copy for ILP32"
		fi
	done

	scratch param-int
	edit "$tmp/param-int/include/vdsokit.h" \
		'const char *vdsokit_machine_name(unsigned machine,' 'const char *vdsokit_machine_name(int machine,'
	edit "$tmp/param-int/src/image.c" \
		'const char *vdsokit_machine_name(unsigned machine,' 'const char *vdsokit_machine_name(int machine,'
	changed param-int "a parameter unsigned -> int (vdsokit_machine_name's machine)"

	scratch route-info
	edit "$tmp/route-info/include/vdsokit.h" \
		'	const char *symbol;       /* vDSO symbol used, or NULL                  */
	const char *version;      /* its version node, or NULL if unversioned   */' \
		'	const char *version;      /* its version node, or NULL if unversioned   */
	const char *symbol;       /* vDSO symbol used, or NULL                  */'
	refused route-info "a struct vdsokit_route_info with two fields swapped" \
		"struct vdsokit_route_info.symbol keeps its offset"
	unasserted route-info
	changed route-info "two fields of the caller-allocated struct vdsokit_route_info swapped (its assertions taken out)"

	# Grown: the compiler refuses it first, then abidiff, with the assertions taken out.
	scratch grown
	edit "$tmp/grown/include/vdsokit.h" \
		'	uint64_t reserved[8];    /* 0                                         */
};' '	uint64_t reserved[8];    /* 0                                         */
	uint64_t added_later;
};'
	refused grown "a grown struct vdsokit_image" "struct vdsokit_image keeps its size"
	unasserted grown
	changed grown "the caller-allocated struct vdsokit_image grown by a field (its assertions taken out)"
fi

# --- the header's constants, which abidiff cannot see ---------------------
# It reads no macros (the rseq flags the inlined getcpu tests, the clock id
# time() reads, VDSOKIT_IMAGE_HAS_*), and an enum only where an exported
# function's types reach it (not enum vdsokit_image_error: the image calls
# take and return int).  scripts/abi-constants lists the header's
# enumerators and numeric macros with their values; make abi-baseline
# writes tests/abi/constants.txt.
cc=${CC:-cc}

# constants DIR: $constants, DIR/include/vdsokit.h's list against the
# committed one: same, differ ($tmp/constants.diff) or error.
constants() {
	if ! "$top/scripts/abi-constants" "$cc" "$1/include/vdsokit.h" >"$tmp/constants.txt" 2>"$tmp/constants.err"; then
		constants=error
	elif diff -u "$top/tests/abi/constants.txt" "$tmp/constants.txt" >"$tmp/constants.diff"; then
		constants=same
	else
		constants=differ
	fi
}

# constants_changed NAME WHAT: the scratch copy NAME's list differs.
constants_changed() {
	constants "$tmp/$1"
	case $constants in
	differ) ok "constants guard, $2: caught ($(grep -c '^[-+][^-+]' "$tmp/constants.diff") lines differ)" ;;
	same) not_ok "constants guard, $2: the list is the same, the change went through" ;;
	*)
		not_ok "constants guard, $2: the list could not be made"
		diag <"$tmp/constants.err" ;;
	esac
}

if [ "$(uname -m)" != x86_64 ]; then
	skip "constants: the list is x86_64's (this is $(uname -m))"
else
	constants "$top"
	case $constants in
	same) ok "constants: the header's enumerators and numeric macros are tests/abi/constants.txt's" ;;
	differ)
		not_ok "constants: the header's enumerators or numeric macros differ from tests/abi/constants.txt"
		diag <"$tmp/constants.diff"
		echo "# intended? update the list (make abi-baseline) in the same commit" ;;
	*)
		not_ok "constants: scripts/abi-constants failed"
		diag <"$tmp/constants.err" ;;
	esac

	scratch rseq-flags
	edit "$tmp/rseq-flags/include/vdsokit.h" \
		'#define VDSOKIT__RSEQ_CPU 1' '#define VDSOKIT__RSEQ_CPU 2' \
		'#define VDSOKIT__RSEQ_NODE 2' '#define VDSOKIT__RSEQ_NODE 1'
	constants_changed rseq-flags "VDSOKIT__RSEQ_CPU and VDSOKIT__RSEQ_NODE swapped"

	scratch image-error
	edit "$tmp/image-error/include/vdsokit.h" \
		'	VDSOKIT_IMAGE_NOT_ELF,' '	VDSOKIT_IMAGE_ADDED_LATER,
	VDSOKIT_IMAGE_NOT_ELF,'
	constants_changed image-error "an image error inserted before VDSOKIT_IMAGE_NOT_ELF (the later ones renumbered)"
fi

# --- a program built for another layout of the inlined data ---------------
# A stand-in for a library of another layout: it exports the route table
# under another name (an older layout's), in a node of its own.
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
	if readelf -W --dyn-syms "$tmp/new" | grep -q "vdsokit__routes_v3@VDSOKIT_0.5"; then
		ok "a program inlining the calls binds vdsokit__routes_v3@VDSOKIT_0.5"
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
