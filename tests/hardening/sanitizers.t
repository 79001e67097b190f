#!/bin/sh
# SPDX-License-Identifier: MIT
# The test suite again, with the library, the CLI and the tests built with
# -fsanitize=address,undefined (-fno-sanitize-recover=all: any report is a
# failure) in $VDSOKIT_BUILD/asan: every compiled test ($BUILD/asan/tests/*.t)
# and the host's shell tests that take a build directory (the CLI, the
# parser against readelf, the malformed corpus through `vdsokit inspect`).
# Cross-architecture, install and QEMU tests are not repeated here.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
build=${VDSOKIT_BUILD:-build}
asan=$build/asan
san="-fsanitize=address,undefined"
echo "1..2"

# Our own make invocation: none of the outer make's variables or jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL
log=$asan.log
mkdir -p "$asan"
# The programs the shell tests run beside the CLI: the sandbox runner and
# the kernel findings' reproducers.
helpers="$asan/tests/tools/sandbox-run"
for f in tests/findings/*.c; do
	[ -f "$f" ] && helpers="$helpers $asan/tests/findings/$(basename "$f" .c)"
done
# shellcheck disable=SC2086
if ! make -j2 --no-print-directory BUILD="$asan" CFLAGS="$san -fno-sanitize-recover=all" \
	LDFLAGS="$san" lib-tests hardening-tests "$asan/tests/calls-shared.t" \
	"$asan/vdsokit" "$asan/tests/tools/imgdump" $helpers >"$log" 2>&1; then
	echo "not ok 1 - the sanitizer build fails (log: $log)"
	grep -E 'error|Error' "$log" | head -20 | sed 's/^/# /'
	echo "not ok 2 - # SKIP nothing to run"
	exit 0
fi
echo "ok 1 - library, CLI and tests built with $san in $asan"

# The shell tests find images in their build directory: share the host build's.
images=$(cd "$build" && pwd)/images
[ -e "$asan/images" ] || ln -s "$images" "$asan/images"

# detect_leaks: the CLI and the tests free what they allocate.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:print_summary=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
VDSOKIT_BUILD=$asan VDSOKIT_IMAGES=$images VDSOKIT_FUZZ_CORPUS=$build/fuzz/corpus
# For shell tests that link their own program against the build's objects.
VDSOKIT_SANITIZE=$san
export ASAN_OPTIONS UBSAN_OPTIONS VDSOKIT_BUILD VDSOKIT_IMAGES VDSOKIT_FUZZ_CORPUS VDSOKIT_SANITIZE
# Left out, because they cannot run under the sanitizers by design:
#   cli-abi.t     `vdsokit abi` passes misaligned, read-only and unmapped
#                 pointers on purpose (undefined behaviour UBSan rightly
#                 reports) and catches the SIGSEGV/SIGBUS itself.
# (cli-doctor.t skips its valgrind cases itself for a sanitizer build.)
shell_tests=""
for t in tests/cli-*.t tests/image-readelf.t tests/hardening/inspect.t; do
	case $t in tests/cli-abi.t) continue ;; esac
	[ -f "$t" ] && shell_tests="$shell_tests $t"
done
# Two at a time: under the sanitizers most of a test's time is spent
# starting processes (ASan's shadow, LeakSanitizer at exit) on one core,
# and `make check` runs this file alone; each test keeps to its own
# temporary directory.
# shellcheck disable=SC2086
if prove -j2 -e '' "$asan"/tests/*.t $shell_tests >"$asan/prove.log" 2>&1; then
	echo "ok 2 - under ASan+UBSan: $(grep -E '^Files=' "$asan/prove.log")"
else
	echo "not ok 2 - the test suite fails under ASan+UBSan:"
	grep -E 'ERROR: AddressSanitizer|runtime error|LeakSanitizer|Failed|not ok|Dubious' \
		"$asan/prove.log" | head -40 | sed 's/^/# /'
	echo "# whole log: $asan/prove.log"
	# prove -j2 keeps no test's own output: run each failed compiled
	# test once more to show its diagnostics (a flaky failure may pass).
	for t in $(sed -n 's|^\('"$asan"'/tests/[^ ]*\.t\) .*Wstat.*|\1|p' "$asan/prove.log"); do
		echo "# again: $t"
		"$t" 2>&1 | grep -E '^(not ok|#)|ERROR|runtime error' | head -30 | sed 's/^/#   /'
	done
fi
