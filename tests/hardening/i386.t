#!/bin/sh
# SPDX-License-Identifier: MIT
# The malformed-image corpus, the thread race, the two parsers' agreement
# (parsers-agree.t) and the single-stepped first call
# (tests/lib/init-any-instant.c) again as 32-bit x86 programs
# (i686-linux-gnu-gcc-12 -static): they run natively on an x86_64 kernel
# and see its real 32-bit vDSO (whose getres has only a 32-bit-time entry),
# and the parser's overflow checks then work with a 32-bit size_t.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
build=${VDSOKIT_BUILD:-build}
cc=i686-linux-gnu-gcc-12
case $(uname -m) in x86_64 | i?86) ;; *) echo "1..0 # SKIP not an x86 host"; exit 0 ;; esac
command -v "$cc" >/dev/null 2>&1 || { echo "1..0 # SKIP $cc not installed"; exit 0; }
unset MAKEFLAGS MFLAGS MAKELEVEL
b32=$build/i686
if ! make -s -j2 --no-print-directory CC="$cc" AR=i686-linux-gnu-ar BUILD="$b32" LDFLAGS=-static \
	hardening-tests "$b32/tests/init-any-instant.t" >"$b32.hardening.log" 2>&1; then
	echo "1..1"
	echo "not ok 1 - the i686 build of the hardening tests fails (log: $b32.hardening.log)"
	exit 0
fi
# Some x86_64 kernels (or sandboxes) refuse 32-bit binaries: exit 126, ENOEXEC.
"$b32/tests/malformed.t" >/dev/null 2>&1
[ $? -eq 126 ] && { echo "1..0 # SKIP this kernel does not execute i386 binaries (no IA32 emulation)"; exit 0; }
# The synthetic images of the host build.
VDSOKIT_IMAGES=$(cd "$build" && pwd)/images
export VDSOKIT_IMAGES
echo "1..4"
n=0
for t in malformed threads parsers-agree init-any-instant; do
	n=$((n + 1))
	if "$b32/tests/$t.t" >"$b32/tests/$t.log" 2>&1; then
		echo "ok $n - i686 $t.t: $(tail -1 "$b32/tests/$t.log" | sed 's/^1\.\./tests: /')"
	else
		echo "not ok $n - i686 $t.t fails:"
		grep -E '^not ok|^# ' "$b32/tests/$t.log" | head -20 | sed 's/^/# /'
	fi
done
