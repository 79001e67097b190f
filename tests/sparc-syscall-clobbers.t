#!/bin/sh
# SPDX-License-Identifier: MIT
# The sparc syscall trap does not preserve the floating-point registers
# (glibc's and the kernel's sparc wrappers declare them all clobbered), so
# src/arch/sparc.h must too: a double live across a raw syscall has to be
# saved before the trap and reloaded after it.  qemu-user keeps the FP
# registers across its emulated syscalls, so no run can show this; the
# compiler's output can: for sparc64 and sparc32 (v8plus and v8), a probe
# keeping three doubles across sys0() is compiled, and every %f register
# read after the trap must have been written after it.
. "$(dirname "$0")/lib.sh"
cc=sparc64-linux-gnu-gcc-12

cat >"$tmp/probe.c" <<'PROBE'
#include "internal.h"
double probe(double x, double y);
double probe(double x, double y)
{
	double a = x * y, b = x + y, c = x - y;
	sys0(__NR_getpid);
	return a * b * c;
}
PROBE

# fp_read_before_written FILE: the first %f register an instruction after
# the trap reads without an instruction after the trap having written it.
fp_read_before_written() {
	awk '
	/^probe:/ { inside = 1; next }
	inside && /\.size/ { exit }
	inside && /^[ \t]+ta / { after = 1; next }
	inside && after {
		line = $0
		sub(/^[ \t]+/, "", line)
		op = line; sub(/[ \t].*/, "", op)
		args = line; sub(/^[^ \t]+[ \t]*/, "", args)
		n = split(args, a, ",")
		for (i = 1; i <= n; i++) gsub(/^[ \t]+|[ \t]+$/, "", a[i])
		# Stores read every operand; other instructions write the last.
		last = (op ~ /^st/) ? n + 1 : n
		for (i = 1; i < last && i <= n; i++)
			if (a[i] ~ /^%f[0-9]+$/ && !(a[i] in written)) { print a[i] " in: " line; exit }
		if (last == n && a[n] ~ /^%f[0-9]+$/) written[a[n]] = 1
	}' "$1"
}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "1..0 # SKIP no $cc"
	exit 0
fi
for flags in "" "-m32" "-m32 -mcpu=v8"; do
	what="sparc${flags:+ $flags}"
	[ -z "$flags" ] && what=sparc64
	# shellcheck disable=SC2086 # the flags are words on purpose
	if ! $cc $flags -O2 -I"$top/include" -I"$top/src" -D_GNU_SOURCE -S -o "$tmp/probe.s" \
		"$tmp/probe.c" 2>"$tmp/cc.err"; then
		not_ok "$what: the probe compiles"
		diag <"$tmp/cc.err"
		continue
	fi
	if ! grep -Eq '^[[:space:]]+ta ' "$tmp/probe.s"; then
		not_ok "$what: the probe's syscall trap is in its assembly"
		continue
	fi
	stale=$(fp_read_before_written "$tmp/probe.s")
	if [ -z "$stale" ]; then
		ok "$what: no FP register is trusted across the syscall trap"
	else
		not_ok "$what: an FP register is read after the trap without a reload ($stale)"
		diag <"$tmp/probe.s"
	fi
done
done_testing
