#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit verify on the host: every check passes or is skipped with a
# reason, the JSON parses and says the same, the default run stays short,
# the time namespace is entered when we may create one, and verify does
# fail on a vDSO that is wrong (a synthetic image returning fixed values).
. "$(dirname "$0")/lib.sh"

if ! command -v jq >/dev/null; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi

# --- text output, default budget ---------------------------------------
start=$(date +%s.%N)
run verify
end=$(date +%s.%N)
expect_status "verify passes on this machine" 0
took=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
echo "# default verify took $took s (budget: about 3 s)"
if grep -Eq '^  (FAIL|pass|skip)  ' "$tmp/out"; then
	ok "verify prints one pass/fail/skip line per check"
else
	not_ok "verify prints check lines"
	head -20 "$tmp/out" | diag
fi
if grep -q '^  FAIL' "$tmp/out"; then
	not_ok "no check fails"
	grep '^  FAIL' "$tmp/out" | diag
else
	ok "no check fails"
fi
# A skip must say why: something after the check name.
if grep -E '^  skip  ' "$tmp/out" | awk '{ if (NF < 4) bad = 1 } END { exit bad }'; then
	ok "every skip gives a reason"
else
	not_ok "a skip without a reason"
	grep -E '^  skip' "$tmp/out" | diag
fi
if tail -1 "$tmp/out" | grep -Eq '^[0-9]+ checks: [0-9]+ passed, 0 failed'; then
	ok "summary line: $(tail -1 "$tmp/out")"
else
	not_ok "summary line"
	tail -3 "$tmp/out" | diag
fi

# --- JSON --------------------------------------------------------------
run verify --json --time 0.5 --threads 3
expect_status "verify --json passes" 0
if jq -e . "$tmp/out" >/dev/null 2>&1; then ok "verify --json parses"; else not_ok "verify --json parses"; fi
cp "$tmp/out" "$tmp/verify.json"
jqt() { jq -e "$2" "$tmp/verify.json" >/dev/null 2>&1 && ok "$1" || { not_ok "$1"; echo "jq: $2" | diag; }; }
jqt "schema vdsokit-verify with a version" '.schema == "vdsokit-verify" and (.schema_version | type == "number")'
jqt "summary agrees: nothing failed" '.summary.ok and .summary.failed == 0'
jqt "every check is pass, skip or vdso-differs (a kernel finding)" 'all(.checks[]; .status == "pass" or .status == "skip" or .status == "vdso-differs")'
jqt "every skip carries a reason" 'all(.checks[] | select(.status == "skip"); .detail | length > 10)'
jqt "counts add up" '.summary.checks == (.checks | length) and .summary.passed + .summary.skipped + .summary.vdso_differs == .summary.checks'
for group in clock_gettime clock_getres "gettimeofday and time" getcpu monotonic getrandom timens; do
	jqt "checks of group '$group' are present" "any(.checks[]; .group == \"$group\")"
done
jqt "clock_gettime: ids 0-11 and the invalid ones (19 checks)" '[.checks[] | select(.group == "clock_gettime")] | length == 19'
jqt "clock_gettime(MONOTONIC) sandwiched in thousands of rounds" \
	'.checks[] | select(.group == "clock_gettime" and .name == "clock_gettime(MONOTONIC)") | .status == "pass" and .numbers.rounds >= 2048 and .numbers.violations == 0'
jqt "invalid id -1 rejected alike" \
	'.checks[] | select(.name == "clock_gettime(INVALID(-1))" and .group == "clock_gettime") | .status == "pass" and .numbers.syscall == .numbers.library'
jqt "--threads 3: the monotonic checks ran 3 threads" \
	'all(.checks[] | select(.group == "monotonic"); .numbers.threads == 3 and .numbers.backwards_across_threads == 0)'
jqt "getcpu visited every allowed CPU" '.checks[] | select(.name == "getcpu") | .status == "pass" and .numbers.visits >= 3 * .numbers.cpus'

# The time namespace: root may create one here (unless a sandbox forbids it).
if jq -e '.checks[] | select(.group == "timens" and .name == "time namespace") | .status == "pass"' \
	"$tmp/verify.json" >/dev/null; then
	ok "a new time namespace was entered: $(jq -r '.checks[] | select(.group == "timens" and .name == "time namespace") | .detail' "$tmp/verify.json")"
	jqt "the namespace's offsets are seen by vDSO, library and syscall" \
		'[.checks[] | select(.group == "timens" and (.name | startswith("offset ")))] | length == 4 and all(.[]; .status == "pass")'
	jqt "the clock checks ran again inside the namespace" \
		'[.checks[] | select(.group == "timens" and (.name | startswith("clock_gettime(")))] | length == 19'
else
	skip "time namespace: $(jq -r '.checks[] | select(.group == "timens") | .detail' "$tmp/verify.json" | head -1)"
	skip "namespace offsets"
	skip "clock checks inside the namespace"
fi

# --- unprivileged: the namespace comes from a user namespace, or is skipped with a reason ---
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$vdsokit" verify --time 0.2 --json \
		>"$tmp/nobody.json" 2>"$tmp/nobody.err"
	st=$?
	if [ $st -eq 0 ] && jq -e '.summary.failed == 0' "$tmp/nobody.json" >/dev/null 2>&1; then
		ok "verify as nobody passes; time namespace: $(jq -r '.checks[] | select(.group == "timens" and .name == "time namespace") | "\(.status): \(.detail)"' "$tmp/nobody.json" | cut -c1-90)"
	else
		not_ok "verify as nobody (exit $st)"
		head -3 "$tmp/nobody.err" | diag
	fi
else
	skip "not root, or no setpriv: cannot drop privileges for the unprivileged run"
fi

# --- verify can fail: a vDSO image whose functions return fixed values ---
arch=$("$vdsokit" --version | sed -n 's/.*, \([a-z0-9_]*\))$/\1/p')
image=$build/images/$arch/callable.so
if [ -f "$image" ]; then
	run verify --time 0.1 --json --image "$image"
	expect_status "verify --image with a wrong vDSO fails" 1
	if jq -e '.summary.failed > 20 and (.checks[] | select(.name == "clock_gettime(MONOTONIC)" and .group == "clock_gettime") | .status == "fail")' \
		"$tmp/out" >/dev/null 2>&1; then
		ok "the wrong vDSO's clock_gettime(MONOTONIC) fails its sandwich ($(jq .summary.failed "$tmp/out") checks fail)"
	else
		not_ok "the wrong vDSO is caught"
		head -c 600 "$tmp/out" | diag
	fi
else
	skip "no synthetic image for $arch at $image (make images)"
	skip "wrong vDSO caught"
fi

# --- a clock the vDSO entry declines: MIPS before 5.4, under qemu-user ---
# The pre54 image's clock_gettime answers -ENOSYS for BOOTTIME (a vDSO of
# that age cannot read it): verify must name the library's answer as such,
# not as a missing symbol, beside the clocks the entry does answer.
image=$build/images/mips64/pre54.so
qemu=$(command -v qemu-mips64el-static || true)
if [ -z "$qemu" ] || [ ! -f "$image" ]; then
	skip "a declining MIPS entry: no qemu-mips64el-static or no $image"
elif cross_vdsokit mips64el-linux-gnuabi64 mips64; then
	"$qemu" "$build/mips64/vdsokit" verify --time 0.1 --json --image "$image" >"$tmp/pre54.json" 2>"$tmp/err"
	sandwich() { jq -r --arg c "$1" '.checks[] | select(.group == "clock_gettime" and .name == "clock_gettime(\($c))") | .detail' "$tmp/pre54.json" 2>/dev/null; }
	boot=$(sandwich BOOTTIME) mono=$(sandwich MONOTONIC)
	# MONOTONIC, which the entry answers, is the vDSO's: its sandwich passes
	# as the vDSO's and the library's, or fails naming the vDSO's reading
	# (the image's fixed time fails it, as it should).
	case "$boot|$mono" in
	"library (the vDSO entry: absent, or -ENOSYS) "*"|vDSO and library "* | \
		"library (the vDSO entry: absent, or -ENOSYS) "*"|"*" <= vDSO "[0-9]*)
		ok "pre-5.4 MIPS image: BOOTTIME, which its entry declines, is the library's answer, not a missing symbol's" ;;
	*)
		not_ok "pre-5.4 MIPS image: BOOTTIME, which its entry declines, is the library's answer, not a missing symbol's"
		printf 'BOOTTIME: %s\nMONOTONIC: %s\n' "$boot" "$mono" | diag
		head -5 "$tmp/err" | diag ;;
	esac
else
	skip "a declining MIPS entry: $(cat "$tmp/make.log" | tail -1)"
fi

# --- usage errors ------------------------------------------------------
run verify --time 0
expect_error "verify --time 0" 2 "--time"
run verify --time abc
expect_error "verify --time abc" 2 "--time"
run verify --threads 0
expect_error "verify --threads 0" 2 "--threads"
run verify extra
expect_error "verify with an extra argument" 2 "unexpected argument"
run verify --image /nonexistent/vdso.so
expect_error "verify --image of a missing file" 2 "/nonexistent/vdso.so"
run verify --image /etc/hostname
expect_error "verify --image of a file that is no vDSO" 2 "/etc/hostname"
run verify --help
expect_status "verify --help" 0

done_testing
