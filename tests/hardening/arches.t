#!/bin/sh
# SPDX-License-Identifier: MIT
# The malformed-image corpus, the thread race and the two parsers'
# agreement (parsers-agree.t) built for every other architecture with a
# cross compiler, run under qemu-user: the parser on big- and
# little-endian, 32- and 64-bit hosts, reading images of the other kinds,
# and the library's own build of it for each of those ABIs.  qemu-user
# maps no vDSO, so there is no host image to break and the library's calls
# take the syscalls; the synthetic images (make images) are the bases.  An
# architecture without its compiler or qemu is skipped.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
build=${VDSOKIT_BUILD:-build}
unset MAKEFLAGS MFLAGS MAKELEVEL
VDSOKIT_IMAGES=$(mkdir -p "$build" && cd "$build" && pwd)/images
export VDSOKIT_IMAGES

# triple qemu-name
targets="aarch64-linux-gnu aarch64
arm-linux-gnueabihf arm
riscv64-linux-gnu riscv64
powerpc-linux-gnu ppc
powerpc64le-linux-gnu ppc64le
s390x-linux-gnu s390x
mips64el-linux-gnuabi64 mips64el
sparc64-linux-gnu sparc64
m68k-linux-gnu m68k"

n=0
echo "$targets" | {
	while read -r triple qemu; do
		dir=$build/hardening-qemu/$qemu
		if ! command -v "$triple-gcc-12" >/dev/null 2>&1 || ! command -v "qemu-$qemu-static" >/dev/null 2>&1; then
			for t in malformed threads parsers-agree; do
				n=$((n + 1)); echo "ok $n # SKIP $qemu: $triple-gcc-12 or qemu-$qemu-static not installed"
			done
			continue
		fi
		mkdir -p "$dir"
		if ! make -s -j2 --no-print-directory CC="$triple-gcc-12" AR="$triple-ar" BUILD="$dir" \
			LDFLAGS=-static hardening-tests >"$dir/build.log" 2>&1; then
			n=$((n + 1)); echo "not ok $n - $qemu: the hardening tests do not build (log: $dir/build.log)"
			n=$((n + 1)); echo "not ok $n - $qemu: nothing to run"
			n=$((n + 1)); echo "not ok $n - $qemu: nothing to run"
			continue
		fi
		for t in malformed threads parsers-agree; do
			n=$((n + 1))
			if "qemu-$qemu-static" "$dir/tests/$t.t" >"$dir/$t.log" 2>&1; then
				echo "ok $n - $qemu: $t.t passes ($(grep -c '^ok' "$dir/$t.log") checks)"
			else
				echo "not ok $n - $qemu: $t.t fails (log: $dir/$t.log)"
				grep -E '^not ok|^# ' "$dir/$t.log" | head -20 | sed 's/^/# /'
			fi
		done
	done
	echo "1..$n"
}
