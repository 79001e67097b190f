#!/bin/sh
# SPDX-License-Identifier: MIT
# The library builds clean (-Wall -Wextra -Werror) with gcc and clang and
# with every cross compiler, including ABIs Debian ships no libc for
# (compile only, with empty gnu/stubs-*.h shims: the headers themselves are
# multi-ABI).  Running on those architectures is tests/qemu-user.t's job.
cd "$(dirname "$0")/.." || exit 1

WARN="-std=gnu11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wundef -fno-strict-aliasing"
SRCS=$(ls src/*.c)
n=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

check() { # name, compiler and flags...
	name=$1; cc=$2; shift 2
	n=$((n + 1))
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "ok $n # SKIP $name: $cc not installed"
		return
	fi
	log="$out/$name.log"
	fail=0
	for f in $SRCS; do
		"$cc" $WARN "$@" -Iinclude -Isrc -D_GNU_SOURCE -c "$f" -o "$out/$name.o" >>"$log" 2>&1 || fail=1
	done
	if [ $fail = 0 ]; then
		echo "ok $n - $name: library builds clean"
	else
		echo "not ok $n - $name: library does not build clean"
		sed 's/^/# /' "$log" | head -20
	fi
}

check gcc gcc
check clang clang
check gcc-O0 gcc -O0
check gcc-Os gcc -Os
check arm-O0 arm-linux-gnueabihf-gcc-12 -O0
for t in aarch64-linux-gnu arm-linux-gnueabihf i686-linux-gnu riscv64-linux-gnu \
	powerpc-linux-gnu powerpc64le-linux-gnu s390x-linux-gnu mips64el-linux-gnuabi64 \
	sparc64-linux-gnu m68k-linux-gnu; do
	check "$t" "$t-gcc-12"
done
SHIMS="-isystem tests/build-shims"
check ppc64-big-endian powerpc64le-linux-gnu-gcc-12 -mbig-endian
check mips-o32 mips64el-linux-gnuabi64-gcc-12 -mabi=32 $SHIMS
check mips-n32 mips64el-linux-gnuabi64-gcc-12 -mabi=n32 $SHIMS
check sparc32 sparc64-linux-gnu-gcc-12 -m32 $SHIMS
check x32 gcc -mx32 $SHIMS -isystem /usr/include/x86_64-linux-gnu
check clang-aarch64 clang --target=aarch64-linux-gnu
check clang-arm clang --target=arm-linux-gnueabihf
check clang-riscv32 clang --target=riscv32-linux-gnu -march=rv32imafdc -mabi=ilp32d $SHIMS
check clang-ppc64le clang --target=powerpc64le-linux-gnu
check clang-s390x clang --target=s390x-linux-gnu
echo "1..$n"
