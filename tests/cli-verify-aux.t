#!/bin/sh
# SPDX-License-Identifier: MIT
# verify checks the auxiliary clocks (ids 16-23, Linux 6.17+): the
# library's clock_gettime and clock_getres equal the syscall's, and where
# the raw vDSO disagrees (6.17/6.18: clock_getres(16..23) succeeds with
# 1 ns where the syscall says EINVAL) the check is "vdso-differs", named on
# stderr, not a failure and not a silent pass.  abi names the same
# disagreement on stderr.
. "$(dirname "$0")/lib.sh"

if ! have jq; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi

"$vdsokit" verify --time 0.3 --json >"$tmp/v.json" 2>"$tmp/err"
status=$?
expect_status "verify" 0
json_check "16 auxiliary clock checks: clock_gettime and clock_getres of AUX0..AUX7" "$tmp/v.json" \
	'[.checks[] | select(.group == "auxiliary clocks")] | length == 16 and
	 ([.[].name] | sort) == ([range(8) | "clock_gettime(AUX\(.))", "clock_getres(AUX\(.))"] | sort)'
json_check "no auxiliary clock check fails (the library agrees with the syscall)" "$tmp/v.json" \
	'[.checks[] | select(.group == "auxiliary clocks" and .status == "fail")] | length == 0'
json_check "the library's return value is the syscall's in every one" "$tmp/v.json" \
	'[.checks[] | select(.group == "auxiliary clocks" and .numbers.syscall != null) |
	  .numbers.syscall == .numbers.library] | all'

# Whether this kernel's vDSO answers clock_getres(16) differently from the
# syscall, asked of abi's table (not of the verify under test).  abi
# passes bad pointers on purpose: not in a sanitizer build.
if sanitized; then
	for i in 1 2 3 4 5 6 7; do skip "$vdsokit is a sanitizer build: abi is not run"; done
else
	"$vdsokit" abi --json >"$tmp/abi.json" 2>"$tmp/abi.err"
	abi_status=$?
	if jq -e '.cases[] | select(.call == "clock_getres(16, &res)") |
		.vdso.outcome == "returned" and .vdso.return != .syscall.return' "$tmp/abi.json" >/dev/null; then
		json_check "verify reports the vDSO's clock_getres(AUX0) as vdso-differs" "$tmp/v.json" \
			'.checks[] | select(.name == "clock_getres(AUX0)") | .status == "vdso-differs"'
		json_check "every vDSO/syscall disagreement among them is vdso-differs, not pass" "$tmp/v.json" \
			'[.checks[] | select(.group == "auxiliary clocks" and .numbers.vdso != null and .numbers.vdso != -38 and
			  .numbers.vdso != .numbers.syscall) | .status == "vdso-differs"] | all'
		json_check "the summary counts them, and the run is ok" "$tmp/v.json" '.summary.vdso_differs >= 1 and .summary.ok'
		check "stderr names them" grep -q 'raw vDSO disagrees with the syscall in .*clock_getres(AUX0)' "$tmp/err"
		run verify --time 0.3
		check "text: DIFF lines" grep -Eq '^  DIFF  clock_getres\(AUX0\) +syscall EINVAL, vDSO 0 \(success\)' "$tmp/out"
		check "abi exits 0 (the library agrees)" test "$abi_status" -eq 0
		check "abi names the vDSO's wrong value on stderr" \
			grep -q 'the raw vDSO returns 0 where the syscall returns EINVAL: clock_getres(16' "$tmp/abi.err"
	else
		for i in 1 2 3 4 5 6 7; do skip "the vDSO agrees with the syscall on the aux clocks here ($(uname -r))"; done
	fi
fi

done_testing
