#!/bin/sh
# SPDX-License-Identifier: MIT
# The public header compiles on its own, warning-free and pedantic, as C89,
# C99, C11, C17 and C++ (98 to 17) with gcc and clang, its inline calls used
# (C89 has no `inline`: the header spells it __inline__), on every ABI the
# QEMU matrix builds: each cross compiler (with the ABI flags of its target,
# mips o32/n32, sparc32) for C, clang++ for that target for C++ (the cross
# C++ compilers are not installed; the header needs only the C library's).
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

cat >"$tmp/use.c" <<'C'
#include "vdsokit.h"
/* The header's calls, its inline fast paths included, used (1: CLOCK_MONOTONIC,
   which strict ISO C modes do not declare). */
int main(void)
{
	struct vdsokit_timespec ts;
	int64_t t;
	unsigned cpu;
	return vdsokit_init() + vdsokit_clock_gettime(1, &ts) +
	       vdsokit_clock_getres(1, &ts) + vdsokit_time(&t) +
	       vdsokit_getcpu(&cpu, NULL) < -4096;
}
C

# compiles NAME COMPILER FLAGS...: the header alone, every warning an error.
compiles() {
	name=$1 cc=$2
	shift 2
	if ! have "$cc"; then
		skip "$name: $cc not installed"
		return
	fi
	if "$cc" "$@" -pedantic -Wall -Wextra -Werror -Iinclude -c "$tmp/use.c" \
		-o "$tmp/use.o" >"$tmp/cc.err" 2>&1; then
		ok "$name: the header compiles ($cc $*)"
	else
		not_ok "$name: the header does not compile ($cc $*)"
		head -10 "$tmp/cc.err" | diag
	fi
}
for std in c89 c99 c11 c17; do
	compiles "$std" gcc -std=$std
	compiles "$std" clang -std=$std
done
for std in c++98 c++11 c++17; do
	compiles "$std" g++ -x c++ -std=$std
	compiles "$std" clang++ -x c++ -std=$std
done

# Every ABI of the matrix: its compiler and flags from tests/qemu/targets.sh.
. "$top/tests/qemu/targets.sh"
seen=" "
for target in $MATRIX_TARGETS; do
	target_info "$target" || continue
	key="$t_triple$t_cflags"
	case $seen in *" $key "*) continue ;; esac
	seen="$seen$key "
	# shellcheck disable=SC2086
	for std in c89 c11; do
		compiles "$t_arch $std" "$t_triple-gcc-12" -std=$std $t_cflags
	done
	clang_target=$t_triple
	case $t_cflags in
	-mabi=32) clang_target=mipsel-linux-gnu ;;
	-mabi=n32) clang_target=mips64el-linux-gnuabin32 ;;
	-m32) clang_target=sparc-linux-gnu ;;
	esac
	if [ -d "/usr/$t_triple/include" ]; then
		for std in c++98 c++17; do
			compiles "$t_arch $std" clang++ --target="$clang_target" -x c++ -std=$std -fsyntax-only \
				-isystem "/usr/$t_triple/include"
		done
	else
		skip "$t_arch C++: no /usr/$t_triple/include (the cross C library)"
	fi
done

done_testing
