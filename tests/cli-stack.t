#!/bin/sh
# SPDX-License-Identifier: MIT
# The vDSO's stack use (cli/measure/stack_use.c): `vdsokit info` shows, per
# function, the deepest byte its vDSO entry touched below the stack pointer,
# in the table and in JSON (a number from a call that succeeded, or null
# with the reason); `doctor` reports the deepest as a finding of its own.
# The probe itself (a write 3000 bytes down, a stack probe's unchanged
# touch 9000 bytes down) is checked by tests/lib/stack.c.
. "$(dirname "$0")/lib.sh"

if ! command -v jq >/dev/null; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi

run info
expect_status "info" 0
if grep -Eq '^  function +route +symbol +offset +stack ' "$tmp/out"; then
	ok "info's function table has a stack column"
else
	not_ok "info's function table has a stack column"
	grep -A3 'libvdsokit functions' "$tmp/out" | diag
fi

run info --json
expect_status "info --json" 0
cp "$tmp/out" "$tmp/info.json"
route=$(jq -r '.functions[] | select(.function == "clock_gettime") | .route' "$tmp/info.json")
if [ "$route" = vdso ]; then
	# Every number an integer from a measured call; the deepest one its clocks' maximum.
	if jq -e '.functions[] | select(.function == "clock_gettime") | .stack |
		(.deepest_bytes | type == "number" and . > 0 and . < 65536) and
		(.clocks | length > 0) and
		(.deepest_bytes == ([.clocks[].deepest_bytes] | max))' "$tmp/info.json" >/dev/null; then
		ok "clock_gettime's vDSO entry: $(jq '.functions[0].stack.deepest_bytes' "$tmp/info.json") bytes, the deepest of its $(jq '.functions[0].stack.clocks | length' "$tmp/info.json") clocks"
	else
		not_ok "clock_gettime's stack figure"
		jq -c '.functions[0]' "$tmp/info.json" | diag
	fi
	if jq -e '.functions[] | select(.function == "clock_gettime") | .stack.clocks |
		all(.clock != "PROCESS_CPUTIME_ID" and .clock != "THREAD_CPUTIME_ID")' "$tmp/info.json" >/dev/null; then
		ok "CPU-time clocks, which the library sends to the syscall, are not measured"
	else
		not_ok "CPU-time clocks left out"
	fi
else
	skip "clock_gettime takes route '$route' here, not the vDSO"
	skip "CPU-time clocks left out: no vDSO"
fi
if jq -e 'all(.functions[]; (.stack == null) == (.stack_unmeasured_reason | type == "string"))' \
	"$tmp/info.json" >/dev/null; then
	ok "every function has a stack figure or the reason it has none"
else
	not_ok "stack figure or reason"
	jq -c '.functions[] | {function, stack, stack_unmeasured_reason}' "$tmp/info.json" | diag
fi
if jq -e '.functions[] | select(.route == "register" or .route == "none") | .stack == null' \
	"$tmp/info.json" >/dev/null 2>&1 || ! jq -e 'any(.functions[]; .route == "register")' "$tmp/info.json" >/dev/null; then
	ok "no figure for a function with no vDSO entry (a register read)"
else
	not_ok "no figure without a vDSO entry"
fi

run doctor --json
cp "$tmp/out" "$tmp/doctor.json"
if [ "$route" = vdso ]; then
	info_max=$(jq '[.functions[].stack.deepest_bytes // empty] | max' "$tmp/info.json")
	if jq -e --argjson max "$info_max" 'any(.findings[]; .id == "vdso-stack" and .severity == "ok"
		and (.title | contains("at most \($max) bytes")))' "$tmp/doctor.json" >/dev/null &&
		[ "$info_max" -le 1024 ]; then
		ok "doctor: vdso-stack ok, at most $info_max bytes, as info measured"
	elif [ "$info_max" -gt 1024 ] &&
		jq -e 'any(.findings[]; .id == "vdso-stack-deep" and .severity == "warning" and
			(.action | contains("golang/go#20427")))' "$tmp/doctor.json" >/dev/null; then
		ok "doctor: vdso-stack-deep warns ($info_max bytes > 1024) and names the runtimes it breaks"
	else
		not_ok "doctor's vDSO stack finding (info measured $info_max bytes)"
		jq -c '.findings[] | select(.id | startswith("vdso-stack"))' "$tmp/doctor.json" | diag
	fi
else
	skip "doctor's vDSO stack finding: no vDSO here"
fi

done_testing
