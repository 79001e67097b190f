#!/bin/sh
# SPDX-License-Identifier: MIT
# The fuzz target looks up every vDSO symbol name and version node that the
# library knows (fuzz/names.h, a test-only copy): it must list every name
# and version of every src/arch/*.h ARCH_SYMBOLS table.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
names=$(sed -n '/ARCH_SYMBOLS/,/^}/p' src/arch/*.h | grep -o '"[A-Za-z0-9_.]*"' | sort -u)
n=0
for q in $names; do
	n=$((n + 1))
	if grep -qF "$q" fuzz/names.h; then
		echo "ok $n - fuzz/names.h has $q"
	else
		echo "not ok $n - fuzz/names.h lacks $q (src/arch/*.h has it): add it"
	fi
done
[ "$n" -gt 0 ] || { echo "not ok 1 - no ARCH_SYMBOLS names found in src/arch/*.h"; n=1; }
echo "1..$n"
