#!/bin/sh
# SPDX-License-Identifier: MIT
# bench's --time is what the measurement takes, also on a busy machine:
# batches sized while the process was starved of CPU must not end the run
# early once the load is gone (CI on 2 cores next to the QEMU matrix:
# "bench --time 2 takes 1.7 s").  tests/cli/measure_budget.c fakes the load
# through the measuring clock, so the result is deterministic.
. "$(dirname "$0")/lib.sh"

objs=$(cli_objects)
if [ -z "$objs" ] || [ ! -f "$build/libvdsokit.a" ]; then
	echo "1..0 # SKIP the CLI's objects are not in $build"
	exit 0
fi
# VDSOKIT_SANITIZE: the -fsanitize flags of the build's objects (see cli-bench-raw.t).
# shellcheck disable=SC2086 # lists of words
if ! ${CC:-cc} ${VDSOKIT_SANITIZE:-} -std=gnu11 -O2 -D_GNU_SOURCE -I"$top/include" -I"$top/cli" \
	-o "$tmp/measure_budget" "$top/tests/cli/measure_budget.c" $objs "$build/libvdsokit.a" \
	-Wl,--wrap=clock_gettime -lm ${LDFLAGS:-} >"$tmp/cc.err" 2>&1; then
	echo "1..1"
	echo "not ok 1 - tests/cli/measure_budget.c does not build against $build"
	diag <"$tmp/cc.err"
	exit 1
fi
# Not exec: lib.sh's exit trap removes $tmp.
"$tmp/measure_budget"
