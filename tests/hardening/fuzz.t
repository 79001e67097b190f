#!/bin/sh
# SPDX-License-Identifier: MIT
# The libFuzzer target (fuzz/fuzz_image.c) for 60 s on the seed corpus:
# fails on any crash, sanitizer report, hang or out-of-memory.
# FUZZ_SECONDS overrides the duration.
build=${VDSOKIT_BUILD:-build}
seconds=${FUZZ_SECONDS:-60}
echo "1..1"
if ! command -v clang >/dev/null 2>&1; then
	echo "ok 1 # SKIP clang not installed (scripts/install-deps)"
	exit 0
fi
# Our own make invocation: none of the outer make's variables or jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL
if ! make --no-print-directory -s BUILD="$build" "$build/fuzz/fuzz_image" "$build/fuzz/dump-vdso" >&2; then
	echo "not ok 1 - the fuzz target does not build"
	exit 0
fi
if out=$(fuzz/run-fuzz "$build" "$seconds" 2>"$build/fuzz/fuzz.t.err"); then
	echo "ok 1 - $out"
	sed 's/^/# /' "$build/fuzz/fuzz.t.err"
else
	echo "not ok 1 - fuzzing the image parser found a problem (see $build/fuzz/artifacts, $build/fuzz/last-run.log)"
	sed 's/^/# /' "$build/fuzz/fuzz.t.err"
fi
