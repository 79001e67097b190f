#!/bin/sh
# SPDX-License-Identifier: MIT
# The public header compiles on its own, warning-free and pedantic, as C89,
# C99, C11, C17 and C++ (98 to 17) with gcc and clang, its inline fast paths
# used (C89 has no `inline`: the header spells it __inline__).
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

done_testing
