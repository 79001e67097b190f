#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel findings of docs/kernel-findings.md: their standalone
# reproducers (tests/findings/, built by `make tests`) run and print what
# they see, exiting 0 whatever the kernel does; and `vdsokit verify` names
# a DIFF that is a documented finding (aux-getres), in text, in JSON
# ("known_finding") and on stderr, so that a user who meets it knows it is
# the kernel's and not their system's.  The reproducer and verify are two
# independent implementations: they must see the same AUX ids disagree.
. "$(dirname "$0")/lib.sh"

findings=$build/tests/findings
doc=$top/docs/kernel-findings.md

# --- the reproducers -------------------------------------------------------
for prog in aux-getres clock-steps futex-time32; do
	if [ -x "$findings/$prog" ]; then
		ok "$prog is built ($findings/$prog)"
	else
		not_ok "$prog is built: $findings/$prog is missing (make tests)"
	fi
done

"$findings/aux-getres" >"$tmp/repro" 2>"$tmp/repro.err"
repro_status=$?
check "aux-getres exits 0 (it documents, it does not judge)" test "$repro_status" -eq 0
check "aux-getres prints its result line" grep -Eq '^result: (the vDSO|not run)' "$tmp/repro"
check "aux-getres prints the kernel it ran on" grep -q "^kernel: Linux $(uname -r) " "$tmp/repro"

"$findings/clock-steps" 0.2 >"$tmp/steps" 2>&1
steps_status=$?
check "clock-steps exits 0 and counts its reads" sh -c \
	"[ $steps_status -eq 0 ] && grep -Eq '^MONOTONIC +[1-9][0-9]* reads, [0-9]+ steps back' '$tmp/steps'"
"$findings/clock-steps" 0 >"$tmp/steps0" 2>&1
steps_status=$?
check "clock-steps refuses a zero duration (exit 2, usage on stderr)" sh -c \
	"[ $steps_status -eq 2 ] && grep -q usage '$tmp/steps0'"

# futex-time32 asks without blocking and runs its threads in a child: it ends
# with its result line whatever the kernel (this host keeps the 32-bit-time
# syscalls; the matrix's y2038 guests do not).
"$findings/futex-time32" >"$tmp/futex" 2>&1
futex_status=$?
check "futex-time32 exits 0 and prints its result line" sh -c \
	"[ $futex_status -eq 0 ] && grep -Eq '^result: the futex syscall this C library waits with (works|is missing)' '$tmp/futex'"
check "futex-time32 refuses arguments (exit 2)" sh -c '"$0" x >/dev/null 2>&1; [ $? -eq 2 ]' "$findings/futex-time32"
check "docs/kernel-findings.md has the anchor #futex-time32" grep -q '<a id="futex-time32"></a>' "$doc"

# --- the write-up: every finding verify can name has its anchor ------------
for id in aux-getres via1-step; do
	check "docs/kernel-findings.md has the anchor #$id" grep -q "<a id=\"$id\"></a>" "$doc"
done

# --- verify names the documented finding -----------------------------------
if ! have jq; then
	skip "jq is not installed: verify's JSON is not checked"
	done_testing
	exit
fi
"$vdsokit" verify --time 0.2 --json >"$tmp/v.json" 2>"$tmp/v.err"
status=$?
expect_status "verify --json" 0
json_check "every check carries known_finding (a string or null)" "$tmp/v.json" \
	'[.checks[] | has("known_finding") and (.known_finding == null or (.known_finding | type) == "string")] | all'
json_check "only DIFFs are named as known findings" "$tmp/v.json" \
	'[.checks[] | select(.known_finding != null) | .status == "vdso-differs"] | all'

repro_ids=$(sed -n 's/^\([0-9][0-9]*\) .*getres DISAGREES$/\1/p' "$tmp/repro" | tr '\n' ' ')
if [ -n "$repro_ids" ]; then
	verify_ids=$(jq -r '.checks[] | select(.known_finding == "aux-getres") | .name' "$tmp/v.json" |
		sed -n 's/^clock_getres(AUX\([0-7]\))$/\1/p' | while read -r i; do echo $((i + 16)); done |
		tr '\n' ' ')
	if [ "$verify_ids" = "$repro_ids" ]; then
		ok "verify names aux-getres for exactly the ids the reproducer sees disagree ($repro_ids)"
	else
		not_ok "verify names aux-getres for ids '$verify_ids', the reproducer sees '$repro_ids'"
	fi
	json_check "clock_getres(AUX0) is a DIFF named aux-getres" "$tmp/v.json" \
		'.checks[] | select(.name == "clock_getres(AUX0)") | .status == "vdso-differs" and .known_finding == "aux-getres"'
	check "stderr: known kernel behaviour, with the entry" \
		grep -q 'known kernel behaviour, not this system: .*; see docs/kernel-findings.md#aux-getres$' "$tmp/v.err"
	run verify --time 0.2
	check "text: the line under DIFF clock_getres(AUX0) names the entry" sh -c \
		"grep -A1 '^  DIFF  clock_getres(AUX0) ' '$tmp/out' | tail -1 |
		 grep -Eq '^ +known kernel behaviour, see docs/kernel-findings.md#aux-getres$'"
	check "text: no pass line is followed by a known-finding line" sh -c \
		"! grep -A1 '^  pass  ' '$tmp/out' | grep -q 'known kernel behaviour'"
else
	for i in 1 2 3 4 5; do
		skip "the vDSO's clock_getres agrees with the syscall for the aux clocks here ($(uname -r)): no aux-getres to name"
	done
fi

done_testing
