#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit abi: at least 40 bad-input cases, each through the syscall, the
# raw vDSO and the library, without the tool itself crashing; the outcomes
# are the kernel's (EFAULT, EINVAL) and the vDSO's (SIGSEGV) as documented
# in docs/abi-contract.md; and the same under qemu-user, where there is no
# vDSO and nothing may differ.
. "$(dirname "$0")/lib.sh"

if ! command -v jq >/dev/null; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi

run abi
expect_status "abi runs every case (differences are findings)" 0
if grep -Eq '^[0-9]+ cases: [0-9]+ ran, 0 could not be run' "$tmp/out"; then
	ok "summary: $(tail -1 "$tmp/out")"
else
	not_ok "summary line"
	tail -3 "$tmp/out" | diag
fi
if grep -q '^Where the raw vDSO differs from the syscall' "$tmp/out" &&
	grep -q '^Where libvdsokit differs from the syscall' "$tmp/out"; then
	ok "the report says where the vDSO and the library differ"
else
	not_ok "the report's difference sections"
fi

run abi --json
expect_status "abi --json" 0
cp "$tmp/out" "$tmp/abi.json"
if jq -e . "$tmp/abi.json" >/dev/null 2>&1; then ok "abi --json parses"; else not_ok "abi --json parses"; fi
jqt() { jq -e "$2" "$tmp/abi.json" >/dev/null 2>&1 && ok "$1" || { not_ok "$1"; echo "jq: $2" | diag; }; }
jqt "schema vdsokit-abi" '.schema == "vdsokit-abi"'
jqt "at least 40 cases ($(jq .summary.cases "$tmp/abi.json" 2>/dev/null))" '.summary.cases >= 40 and (.cases | length) == .summary.cases'
jqt "every case ran on every path" 'all(.cases[]; [.syscall, .vdso, .library][] | .outcome != "not_run") and .summary.not_run == 0'
jqt "no call hung" 'all(.cases[]; [.syscall, .vdso, .library][] | .outcome != "timeout")'
for fn in clock_gettime clock_getres gettimeofday time getcpu getrandom; do
	jqt "$fn: NULL, unmapped, read-only, partly mapped, misaligned, kernel pointers" \
		"[.cases[] | select(.function == \"$fn\" and .category == \"pointer\") | .pointer] as \$p | all(\"NULL\", \"unmapped\", \"read-only\", \"partly mapped\", \"misaligned\", \"kernel address\"; . as \$k | \$p | index(\$k) != null)"
done
jqt "invalid clock id -1: EINVAL from all three" \
	'.cases[] | select(.function == "clock_gettime" and .clock == -1) | [.syscall, .vdso, .library] | all(.errno == "EINVAL" or .outcome == "absent")'
jqt "CPU clock of another process: readable" \
	'.cases[] | select(.argument == "clock SCHED of another process") | .syscall.return == 0 and .library.return == 0'
jqt "CPU clock of a nonexistent process: EINVAL" \
	'.cases[] | select(.function == "clock_gettime" and .argument == "clock of a nonexistent process") | .syscall.errno == "EINVAL" and .library.errno == "EINVAL"'
jqt "CPU clock of another process's thread: EINVAL (threads of other processes are off limits)" \
	'.cases[] | select(.argument == "clock of another process'"'"'s thread") | .syscall.errno == "EINVAL"'
jqt "the syscall answers a NULL timespec with EFAULT" \
	'.cases[] | select(.function == "clock_gettime" and .category == "pointer" and .pointer == "NULL") | .syscall.errno == "EFAULT"'
jqt "where the library differs from the syscall, it is by a signal (a bad pointer written through)" \
	'all(.cases[] | select(.library_differs); .library.outcome == "signal")'

# With a vDSO that reads the clock in user space, bad pointers crash it.
if jq -e '.host.vdso_usable and (.cases[] | select(.function == "clock_gettime" and .pointer == "NULL" and .category == "pointer") | .vdso.outcome == "signal")' "$tmp/abi.json" >/dev/null 2>&1; then
	ok "vDSO clock_gettime(MONOTONIC, NULL): $(jq -r '.cases[] | select(.function == "clock_gettime" and .pointer == "NULL" and .category == "pointer") | .vdso.signal' "$tmp/abi.json") where the syscall says EFAULT"
	jqt "a finding says it plainly: SIGSEGV instead of EFAULT" \
		'any(.findings[]; .path == "vdso" and .function == "clock_gettime" and (.text | test("SIGSEGV instead of EFAULT")))'
else
	skip "no user-space vDSO clock_gettime here: nothing to crash"
	skip "SIGSEGV finding"
fi

# --- qemu-user: no vDSO, so the vDSO column is absent and nothing differs ---
qemu=$(command -v qemu-aarch64-static || true)
a64=$build/aarch64/vdsokit
if [ -n "$qemu" ] && cross_vdsokit aarch64-linux-gnu aarch64; then
	"$qemu" "$a64" abi --json >"$tmp/a64.json" 2>"$tmp/a64.err"
	st=$?
	if [ $st -eq 0 ] && jq -e '.summary.cases >= 40 and .summary.not_run == 0' "$tmp/a64.json" >/dev/null 2>&1; then
		ok "aarch64 under qemu-user: $(jq .summary.cases "$tmp/a64.json") cases ran"
	else
		not_ok "aarch64 under qemu-user (exit $st)"
		tail -3 "$tmp/a64.err" | diag
	fi
	if jq -e 'all(.cases[]; .vdso.outcome == "absent") and .summary.vdso_differs == 0' "$tmp/a64.json" >/dev/null 2>&1; then
		ok "aarch64 under qemu-user: no vDSO, so every vDSO outcome is 'absent'"
	else
		not_ok "aarch64 under qemu-user: vDSO outcomes"
	fi
else
	skip "aarch64 under qemu-user: no qemu-aarch64-static, cross compiler, or the build failed"
	skip "aarch64 vDSO outcomes"
	[ -s "$tmp/make.log" ] && tail -5 "$tmp/make.log" | diag
fi

# --- i386 userspace on this x86_64 kernel: the compat vDSO ---------------
i686=$build/i686/vdsokit
if [ "$(uname -m)" = x86_64 ] && cross_vdsokit i686-linux-gnu i686; then
	"$i686" abi --json >"$tmp/i686.json" 2>"$tmp/i686.err"
	st=$?
	if [ $st -eq 0 ] && jq -e '.summary.cases >= 40 and .summary.not_run == 0' "$tmp/i686.json" >/dev/null 2>&1; then
		ok "i386 (compat vDSO): $(jq .summary.cases "$tmp/i686.json") cases ran, the vDSO differs in $(jq .summary.vdso_differs "$tmp/i686.json")"
	else
		not_ok "i386 abi (exit $st)"
	fi
	# The bare 32-bit gettimeofday syscall answers a read-only tv with EFAULT.
	if jq -e '.cases[] | select(.function == "gettimeofday" and .pointer == "read-only" and .argument == "tv: read-only") | .syscall.errno == "EFAULT"' \
		"$tmp/i686.json" >/dev/null 2>&1; then
		ok "i386: the syscall column is the kernel's (gettimeofday, read-only tv: EFAULT)"
	else
		not_ok "i386: gettimeofday syscall column"
	fi
else
	skip "i386: not an x86_64 host, no i686 cross compiler, the build failed, or this kernel does not execute i386 binaries"
	skip "i386 syscall column"
fi

# --- usage errors ------------------------------------------------------
run abi extra
expect_error "abi with an extra argument" 2 "unexpected argument"
run abi --nope
expect_error "abi with an unknown option" 2 "unknown option"
run abi --help
expect_status "abi --help" 0

done_testing
