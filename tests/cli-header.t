#!/bin/sh
# SPDX-License-Identifier: MIT
# The public header compiles on its own, warning-free and pedantic, as C89,
# C99, C11, C17 and C++98, 11 and 17, to an object at -O2, its inline calls
# used (C89 has no `inline`: the header spells it __inline__), included
# twice, and with -DVDSOKIT_NO_INLINE (the out-of-line calls alone) in the
# strictest of each language: with gcc and clang on the host, and on every
# ABI the QEMU matrix builds with that ABI's cross compiler (with the ABI
# flags of its target, mips o32/n32, sparc32); for C++ its g++ where one is
# installed, else clang++ for that target on the cross C library's headers
# (the header needs no C++ library).  A compiler missing for an ABI is a
# skip that says so; no compile at all is a failure.  The compiles run two
# at a time (this test is in make test).
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

cat >"$tmp/use.c" <<'C'
#include "vdsokit.h"
#include "vdsokit.h" /* its guard */
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

# compiles NAME COMPILER FLAGS...: queues a compile of the header, every
# warning an error, as $tmp/jobs/N.sh (run below); a missing compiler is a skip.
mkdir "$tmp/jobs"
queued=0
compiles() {
	name=$1 cc=$2
	shift 2
	if ! have "$cc"; then
		skip "$name: $cc not installed"
		return
	fi
	queued=$((queued + 1))
	job=$tmp/jobs/$queued
	printf '%s\n' "$name" >"$job.name"
	printf '%s\n' "$cc $*" >"$job.cmd"
	{
		printf 'exec'
		for arg in "$cc" "$@" -pedantic -Wall -Wextra -Werror -Iinclude -c "$tmp/use.c" -o "$job.o"; do
			printf " '%s'" "$arg"
		done
		echo
	} >"$job.sh"
}

# both LANGUAGE NAME COMPILER FLAGS...: each standard of the language, and
# the strictest once more with -DVDSOKIT_NO_INLINE.
both() {
	b_lang=$1 b_name=$2 b_cc=$3
	shift 3
	case $b_lang in
	c) b_stds="c89 c99 c11 c17" ;;
	c++) b_stds="c++98 c++11 c++17" ;;
	esac
	for b_std in $b_stds; do
		compiles "$b_name$b_std" "$b_cc" -x "$b_lang" -std="$b_std" "$@"
	done
	b_std=${b_stds%% *}
	compiles "$b_name$b_std -DVDSOKIT_NO_INLINE" "$b_cc" -x "$b_lang" -std="$b_std" -DVDSOKIT_NO_INLINE "$@"
}

both c "" gcc -O2
both c "" clang -O2
both c++ "" g++ -O2
both c++ "" clang++ -O2

# Every ABI of the matrix: its compiler and flags from tests/qemu/targets.sh.
. "$top/tests/qemu/targets.sh"
seen=" "
for target in $MATRIX_TARGETS; do
	target_info "$target" || continue
	key="$t_triple$t_cflags"
	case $seen in *" $key "*) continue ;; esac
	seen="$seen$key "
	# shellcheck disable=SC2086
	both c "$t_arch " "$t_triple-gcc-12" -O2 $t_cflags
	clang_target=$t_triple
	case $t_cflags in
	-mabi=32) clang_target=mipsel-linux-gnu ;;
	-mabi=n32) clang_target=mips64el-linux-gnuabin32 ;;
	-m32) clang_target=sparc-linux-gnu ;;
	esac
	if have "$t_triple-g++-12"; then
		# shellcheck disable=SC2086
		both c++ "$t_arch " "$t_triple-g++-12" -O2 $t_cflags
	elif [ ! -d "/usr/$t_triple/include" ]; then
		skip "$t_arch C++: no $t_triple-g++-12, and no /usr/$t_triple/include (the cross C library) for clang++"
	elif [ "$t_arch" = m68k ]; then
		# clang 14's m68k backend (experimental) has no lock-free atomic
		# at all: the header's relaxed loads would be libatomic calls,
		# which -Watomic-alignment refuses; its syntax is still checked.
		both c++ "$t_arch (syntax only: clang's m68k has no lock-free atomics) " clang++ \
			--target="$clang_target" -fsyntax-only -isystem "/usr/$t_triple/include"
	else
		# The integrated assembler: clang would run the host's as for sparc32.
		both c++ "$t_arch " clang++ --target="$clang_target" -fintegrated-as -O2 \
			-isystem "/usr/$t_triple/include"
	fi
done

# Two at a time, then reported in the order queued.
ls "$tmp"/jobs/*.sh 2>/dev/null | xargs -r -P2 -I{} sh -c 'sh "$1" >"${1%.sh}.err" 2>&1; echo $? >"${1%.sh}.rc"' _ {}
compiled=0
i=0
while [ $i -lt $queued ]; do
	i=$((i + 1))
	job=$tmp/jobs/$i
	if [ "$(cat "$job.rc" 2>/dev/null)" = 0 ]; then
		compiled=$((compiled + 1))
		ok "$(cat "$job.name"): the header compiles ($(cat "$job.cmd"))"
	else
		not_ok "$(cat "$job.name"): the header does not compile ($(cat "$job.cmd"))"
		head -10 "$job.err" 2>/dev/null | diag
	fi
done
if [ $compiled -gt 0 ]; then
	ok "$compiled compiles of the header, of $queued queued"
else
	not_ok "the header was compiled by nothing (no compiler found, or none ran)"
fi

done_testing
