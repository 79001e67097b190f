#!/bin/sh
# SPDX-License-Identifier: MIT
# bench's "raw vDSO" column is the bare vDSO pointer called from the
# measuring loop, not the library's vdsokit_*_via(VDSOKIT_ROUTE_VDSO) (a
# state check and an out-of-line call, which made the reference slower
# than the library it judges).  tests/cli/bench_raw.c counts, with
# -Wl,--wrap, the calls the raw loops make into the *_via functions; the
# figures themselves are never pass/fail.
. "$(dirname "$0")/lib.sh"

objs=$(cli_objects)
if [ -z "$objs" ] || [ ! -f "$build/libvdsokit.a" ]; then
	echo "1..0 # SKIP the CLI's objects are not in $build"
	exit 0
fi
wrap=""
for f in clock_gettime clock_getres gettimeofday time getcpu; do
	wrap="$wrap -Wl,--wrap=vdsokit_${f}_via"
done
# VDSOKIT_SANITIZE: the -fsanitize flags the build's objects were compiled
# with (tests/hardening/sanitizers.t), which the link must repeat.
# shellcheck disable=SC2086 # lists of words
if ! ${CC:-cc} ${VDSOKIT_SANITIZE:-} -std=gnu11 -O2 -D_GNU_SOURCE -I"$top/include" -I"$top/cli" \
	-o "$tmp/bench_raw" "$top/tests/cli/bench_raw.c" $objs "$build/libvdsokit.a" $wrap -lm ${LDFLAGS:-} \
	>"$tmp/cc.err" 2>&1; then
	echo "1..1"
	echo "not ok 1 - tests/cli/bench_raw.c does not build against $build"
	diag <"$tmp/cc.err"
	exit 1
fi
# Not exec: lib.sh's exit trap removes $tmp.
"$tmp/bench_raw"
