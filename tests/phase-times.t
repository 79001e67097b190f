#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/phase-times, the closing lines of `make check`: each phase's time
# from the epoch seconds it is given, the matrix's phases and each kernel
# build from the matrix's TAP, the other tests' time from when the last of
# their TAP copies was written; a skipped matrix and a warm kernel cache
# said as such, never a blank.
. "$(dirname "$0")/lib.sh"
pt=$top/tests/phase-times
tap=$tmp/tap
mkdir -p "$tap"
t0=1000000000
cat >"$tap/build%tests%qemu-matrix.t.tap" <<'TAP'
# phase 1: kernels (cache /nowhere)
# build-kernel: m68k built in 323 s, 393 CPU s
# build-kernel: sparc64 built in 359 s, 448 CPU s
# build-glibc: m68k built in 512 s, 901 CPU s (46 tests)
# phases 1-2 took 2322 s
ok 1 - arm64: guest booted
# matrix took 2763 s; artifacts in /nowhere
1..1
TAP
echo "1..1" >"$tap/tests%a.t.tap"
echo "1..1" >"$tap/tests%b.t.tap"
touch -d @$((t0 + 59 + 1000)) "$tap/tests%a.t.tap"
touch -d @$((t0 + 59 + 1796)) "$tap/tests%b.t.tap"
touch -d @$((t0 + 59 + 2763)) "$tap/build%tests%qemu-matrix.t.tap"
"$pt" "$tap" $t0 $((t0 + 3)) $((t0 + 5)) $((t0 + 59)) $((t0 + 2823)) >"$tmp/out" 2>&1
line() { sed -n "$1p" "$tmp/out"; }
[ "$(line 1)" = "make check phases: deps 3 s, build 2 s, test programs 54 s, prove 2764 s, total 2823 s" ] &&
	ok "the phases before and of prove, and the total" || { not_ok "the phases before and of prove"; diag <"$tmp/out"; }
[ "$(line 2)" = "  qemu-matrix.t 2763 s: kernels and cross builds 2322 s, then the boots 441 s" ] &&
	ok "the matrix: its kernels and cross builds, then its boots" || { not_ok "the matrix's phases"; diag <"$tmp/out"; }
[ "$(line 3)" = "  kernels built: m68k 323 s (393 CPU s), sparc64 359 s (448 CPU s)" ] &&
	ok "each kernel build, wall and CPU time" || { not_ok "each kernel build"; diag <"$tmp/out"; }
[ "$(line 4)" = "  glibc built: glibc for m68k 512 s (901 CPU s)" ] &&
	ok "the m68k glibc build, wall and CPU time" || { not_ok "the m68k glibc build"; diag <"$tmp/out"; }
[ "$(line 5)" = "  the other 2 test files: 1796 s" ] &&
	ok "the other tests: until the last of their TAP copies was written" || { not_ok "the other tests' time"; diag <"$tmp/out"; }

# A warm cache: no kernel built.
sed -i '/build-kernel\|build-glibc/d' "$tap/build%tests%qemu-matrix.t.tap"
"$pt" "$tap" $t0 $((t0 + 3)) $((t0 + 5)) $((t0 + 59)) $((t0 + 2823)) >"$tmp/out" 2>&1
[ "$(line 3)" = "  kernels built: none, all cached" ] &&
	ok "every kernel cached: said so" || { not_ok "every kernel cached: said so"; diag <"$tmp/out"; }
[ "$(line 4)" = "  glibc built: none, cached" ] &&
	ok "glibc cached: said so" || { not_ok "glibc cached: said so"; diag <"$tmp/out"; }

# VDSOKIT_MATRIX=0: one SKIP per target, no phase took anything.
printf 'ok 1 - arm64: boot under QEMU # SKIP VDSOKIT_MATRIX=0\n1..1\n' >"$tap/build%tests%qemu-matrix.t.tap"
"$pt" "$tap" $t0 $((t0 + 3)) $((t0 + 5)) $((t0 + 59)) $((t0 + 2823)) >"$tmp/out" 2>&1
[ "$(line 2)" = "  qemu-matrix.t booted no guest: # SKIP VDSOKIT_MATRIX=0" ] && ! grep -q '?' "$tmp/out" &&
	ok "a skipped matrix: the reason, no blank figure" || { not_ok "a skipped matrix: the reason"; diag <"$tmp/out"; }

"$pt" "$tap" 1 2 >/dev/null 2>&1
[ $? -eq 64 ] && ok "too few arguments: a usage error (64)" || not_ok "too few arguments: a usage error (64)"
done_testing
