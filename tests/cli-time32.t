#!/bin/sh
# SPDX-License-Identifier: MIT
# The i386 CLI on a kernel without the 32-bit time syscalls
# (CONFIG_COMPAT_32BIT_TIME=n), reproduced by a seccomp filter that refuses
# them with ENOSYS: its reference calls take the time64 syscalls (abi's
# time() and gettimeofday() compared with SYS_time: false failures), verify
# does not abort in glibc's time32 futex wait but skips its threaded checks
# with the reason, and doctor says what such a kernel means.
#
# LC_ALL=C: glibc's gconv set-up for a UTF-8 locale ends in a pthread_once
# whose unconditional FUTEX_WAKE aborts a static i386 glibc there too (a
# C-library matter, docs/kernel-findings.md#futex-time32); the checks here
# are about the tool's own calls.
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL

cli=$build/i686/vdsokit
sandbox=$build/i686/tests/tools/sandbox-run
# All of them (as Linux 7.3 without the option), and as 6.12 has it: the
# compat gettimeofday stays (kernel/time/time.c keeps it under CONFIG_COMPAT).
time32=time,gettimeofday,clock_gettime,clock_getres,futex,clock_nanosleep,nanosleep
time32_612=time,clock_gettime,clock_getres,futex,clock_nanosleep,nanosleep
if [ ! -x "$cli" ] || [ ! -x "$sandbox" ]; then
	echo "1..0 # SKIP no i386 build at $build/i686 (i686-linux-gnu-gcc-12, make check)"
	exit 0
fi
"$sandbox" --errno ENOSYS time -- "$cli" --version >/dev/null 2>&1
case $? in
0) ;;
126|127) echo "1..0 # SKIP this kernel does not run i386 programs"; exit 0 ;;
*) echo "1..0 # SKIP sandbox-run cannot install an i386 filter here"; exit 0 ;;
esac

# in_time32 ARGS...: the i386 vdsokit without the time32 syscalls.
in_time32() {
	"$sandbox" --errno ENOSYS "$time32" -- "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
}

in_time32 verify --time 0.3 --json
if [ "$status" = 134 ] || grep -q "futex facility" "$tmp/err"; then
	not_ok "verify does not abort in the C library's futex wait (exit $status)"
	tail -2 "$tmp/err" | diag
else
	json_check "verify skips its threaded checks with the futex reason (exit $status)" "$tmp/out" \
		'[.checks[] | select(.name | test("across threads"))] as $t | ($t | length) == 2 and
		 all($t[]; .status == "skip" and (.detail | test("futex syscall .* ENOSYS")))'
fi

json_check "verify: no getrandom in the i386 vDSO, said so (not the Linux 6.11 story)" "$tmp/out" \
	'any(.checks[]; .name == "getrandom (vDSO)" and .status == "skip" and
	     (.detail | test("no getrandom in the vDSO of i386")))'

in_time32 abi --json
json_check "abi: time() and gettimeofday() compared with the time64 syscall, no difference" "$tmp/out" \
	'[.cases[] | select(.function == "time" or .function == "gettimeofday")] as $c |
	 ($c | length) > 0 and all($c[]; .syscall.outcome != "refused" and .library_differs == false)'
if grep -Eq "libvdsokit returns .* where the syscall returns .*: (time|gettimeofday)\(" "$tmp/err"; then
	not_ok "abi names no wrong value for time() or gettimeofday()"
	grep -E "(time|gettimeofday)\(" "$tmp/err" | head -3 | diag
else
	ok "abi names no wrong value for time() or gettimeofday()"
fi

in_time32 doctor --json
json_check "doctor says the kernel has no 32-bit time syscalls, and what it means" "$tmp/out" \
	'any(.findings[]; .id == "no-time32-syscalls" and (.action | test("futex")) and
	     any(.evidence[]; test("clock_gettime, clock_getres, gettimeofday, time, futex; clock_gettime64 works")))'

"$sandbox" --errno ENOSYS "$time32_612" -- "$cli" doctor --json >"$tmp/out" 2>/dev/null
json_check "doctor says it too where gettimeofday stays, as on the y2038 guest's 6.12" "$tmp/out" \
	'any(.findings[]; .id == "no-time32-syscalls" and
	     any(.evidence[]; test("ENOSYS: clock_gettime, clock_getres, time, futex;")) and
	     any(.evidence[]; test("still there: gettimeofday")))'
json_check "... and, a filter being active here, names it as the other possible cause" "$tmp/out" \
	'any(.findings[]; .id == "no-time32-syscalls" and (.title | test("or the active seccomp filter")) and
	     any(.evidence[]; test("Seccomp: 2 .filter.")))'

"$sandbox" --errno ENOSYS clock_gettime,time -- "$cli" doctor --json >"$tmp/out" 2>/dev/null
json_check "a filter refusing only some of them is not such a kernel" "$tmp/out" \
	'all(.findings[]; .id != "no-time32-syscalls")'

# The same program on the host's kernel: no such finding.
"$cli" doctor --json >"$tmp/out" 2>/dev/null
json_check "doctor on a kernel with them says nothing of the kind" "$tmp/out" \
	'all(.findings[]; .id != "no-time32-syscalls")'

# The vDSO's own fallback refused, not the reference: i386's __vdso_clock_getres
# falls back to the 32-bit clock_getres, the reference is clock_getres_time64.
# What the entry returns then is the sandbox's EPERM: a skip naming that
# syscall, not 24 failures of the vDSO and the library.
"$sandbox" --errno EPERM clock_getres -- "$cli" verify --time 0.2 --json >"$tmp/out" 2>/dev/null
json_check "verify: the vDSO's refused clock_getres fallback is a skip naming it, no failure" \
	"$tmp/out" '([.checks[] | select(.status == "fail")] | length) == 0 and
	 any(.checks[]; .name == "clock_getres(PROCESS_CPUTIME_ID)" and .status == "skip" and
	     (.detail | test("clock_getres syscall .*EPERM")))'
# clock_gettime64 refused: INT_MIN (the REALTIME bit of the library's mask,
# so through the vDSO entry) is no failure either, as the other invalid ids.
"$sandbox" --errno ENOSYS clock_gettime64 -- "$cli" verify --time 0.2 --json >"$tmp/out" 2>/dev/null
json_check "verify: clock_gettime(INVALID(-2147483648)) with clock_gettime64 refused: no failure" \
	"$tmp/out" '([.checks[] | select(.status == "fail")] | length) == 0 and
	 any(.checks[]; .name == "clock_gettime(INVALID(-2147483648))" and .status != "fail")'

# abi the same: the library's clock_getres(INT_MIN) went through the vDSO
# entry, whose refused fallback answered EPERM: not a wrong value (exit 0).
"$sandbox" --errno EPERM clock_getres -- "$cli" abi >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st = 0 ] && ! grep -q "returns EPERM where" "$tmp/err" &&
   grep -q "not compared: the vDSO entry's own fallback syscall is refused" "$tmp/err"; then
	ok "abi: the vDSO's refused clock_getres fallback is said, not a wrong value (exit 0)"
else
	not_ok "abi: the vDSO's refused clock_getres fallback is said, not a wrong value (exit $st)"
	head -5 "$tmp/err" | diag
fi

# On the y2038 kernel nothing is filtered: the entry's fallback is missing.
"$sandbox" --errno ENOSYS "$time32_612" -- "$cli" abi >"$tmp/out" 2>"$tmp/err"
st=$?
if [ $st = 0 ] && grep -q "own fallback syscall returned ENOSYS (not in this kernel" "$tmp/err" &&
   ! grep -q "(a seccomp filter)" "$tmp/err"; then
	ok "abi: a fallback answering ENOSYS is not blamed on a seccomp filter (exit 0)"
else
	not_ok "abi: a fallback answering ENOSYS is not blamed on a seccomp filter (exit $st)"
	grep "not compared" "$tmp/err" | diag
fi

done_testing
