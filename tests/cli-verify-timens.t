#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit verify run inside a time namespace that has offsets of its own
# (unshare -T --monotonic … --boottime …): the namespace verify creates for
# its checks counts its offsets from the initial namespace, not from this
# one, so verify must expect the difference, and report no false failure.
. "$(dirname "$0")/lib.sh"

if ! have jq; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi
if ! have unshare || ! unshare -T --monotonic 1 true 2>/dev/null; then
	echo "1..0 # SKIP cannot create a time namespace with offsets here (unshare -T, CAP_SYS_ADMIN)"
	exit 0
fi

# in_namespace MONOTONIC_S BOOTTIME_S: verify inside a namespace with those offsets.
in_namespace() {
	unshare -T --monotonic "$1" --boottime "$2" "$vdsokit" verify --time 0.3 --json \
		>"$tmp/out" 2>"$tmp/err"
	status=$?
	offsets=$(unshare -T --monotonic "$1" --boottime "$2" cat /proc/self/timens_offsets | tr '\n' ' ')
	expect_status "verify in a namespace with offsets $offsets" 0
	json_check "... the time namespace check entered a new one" "$tmp/out" \
		'.checks[] | select(.group == "timens" and .name == "time namespace") | .status == "pass"'
	json_check "... the four offset checks pass" "$tmp/out" \
		'[.checks[] | select(.group == "timens" and (.name | startswith("offset ")))] | length == 4 and all(.[]; .status == "pass")'
	if jq -e '[.checks[] | select(.status == "fail")] | length == 0' "$tmp/out" >/dev/null; then
		ok "... no check fails"
	else
		not_ok "... checks fail"
		jq -r '.checks[] | select(.status == "fail") | "\(.name): \(.detail)"' "$tmp/out" | diag
	fi
}
in_namespace 86400000 5000     # 1000 days ahead, larger than verify's own offsets
in_namespace 864000 1728000    # exactly verify's own offsets: a shift of zero
# Behind the initial namespace, by at most the time since boot: the kernel
# refuses an offset that would make the namespace's monotonic clock negative
# (ERANGE), and a machine freshly booted for CI has been up for minutes.
up=$(cut -d. -f1 /proc/uptime)
behind=$((up > 1010 ? 1000 : up - 10))
if [ "$behind" -gt 0 ]; then
	in_namespace "-$behind" 0
else
	for i in 1 2 3 4; do skip "a namespace behind the initial one: up only ${up} s"; done
fi

done_testing
