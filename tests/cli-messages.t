#!/bin/sh
# SPDX-License-Identifier: MIT
# Messages and exit codes as vdsokit(1) promises them: each error names the
# subcommand and the real reason; a lost output is exit 2, not a signal;
# stderr never splits a stdout line; a summary claims only what was
# compared; bad input is refused with a message, not a table of dashes.
. "$(dirname "$0")/lib.sh"

# --- a lost stdout: the errno of the write, the subcommand, exit 2 ------
if [ -w /dev/full ]; then
	"$vdsokit" dump >/dev/full 2>"$tmp/err"
	status=$?
	: >"$tmp/out"
	expect_error "dump > /dev/full" 2 "^vdsokit dump: error writing the output: No space left on device$"
	"$vdsokit" info >/dev/full 2>"$tmp/err"
	status=$?
	expect_error "info > /dev/full" 2 "^vdsokit info: error writing the output: No space left on device$"
else
	skip "no /dev/full"
	skip "no /dev/full"
fi
"$vdsokit" dump >&- 2>"$tmp/err"
status=$?
expect_error "dump >&-" 2 "^vdsokit dump: error writing the output: Bad file descriptor$"

# --- a pipe closed early: exit 2 with the reason, not death by SIGPIPE ----
# The pipeline's first status, without bash's PIPESTATUS.
# The reader is gone before bench writes (it measures first): no race on
# how much a pipe buffer takes.
{ "$vdsokit" bench --time 0.2 --functions time,getcpu --csv 2>"$tmp/err"; echo $? >"$tmp/status"; } | true
status=$(cat "$tmp/status")
if [ "$status" -eq 2 ] && grep -q "^vdsokit bench: error writing the output: Broken pipe$" "$tmp/err"; then
	ok "bench --csv into a closed pipe: exit 2 and 'Broken pipe', not SIGPIPE (141)"
else
	not_ok "bench --csv | head -1 (exit $status, want 2)"
	cat "$tmp/err" | diag
fi

# --- stderr does not split stdout lines in `> log 2>&1` ------------------
"$vdsokit" abi >"$tmp/log" 2>&1
all=$(grep -c 'vdsokit abi: warning' "$tmp/log")
whole=$(grep -c '^vdsokit abi: warning' "$tmp/log")
if [ "$all" -eq 0 ]; then
	skip "abi printed no warning here to interleave"
elif [ "$all" -eq "$whole" ] && tail -n "$all" "$tmp/log" | grep -q '^vdsokit abi: warning'; then
	ok "abi > log 2>&1: its $all warnings start lines, after the whole table"
else
	not_ok "abi > log 2>&1: a warning splits a stdout line"
	grep -n '.vdsokit abi: warning' "$tmp/log" | head -3 | diag
fi

# --- abi with no case run claims nothing, and says why ---------------------
if [ "$(id -u)" = 0 ] && have setpriv && have prlimit; then
	chmod 711 "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=1 \
		"$vdsokit" abi >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 1 ] && ! grep -q "nowhere" "$tmp/out" && grep -q "fork: EAGAIN" "$tmp/out" &&
		grep -q "could not be run (first: fork: EAGAIN)" "$tmp/err" &&
		grep -q "nothing compared" "$tmp/out"; then
		ok "abi where fork fails: each case says 'fork: EAGAIN', no 'nowhere' claim"
	else
		not_ok "abi where fork fails (exit $status)"
		{ grep -n "nowhere\|could not\|cases:" "$tmp/out"; cat "$tmp/err"; } | head -8 | diag
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups prlimit --nproc=1 \
		"$vdsokit" abi --json >"$tmp/out" 2>"$tmp/err"
	json_check "abi --json where fork fails: reasons, null difference counts" "$tmp/out" \
		'.summary.ran == 0 and .summary.vdso_differs == null and .summary.library_differs == null and ([.cases[].syscall.reason] | all(. == "fork: EAGAIN"))'
else
	skip "not root, or no setpriv/prlimit: cannot make fork fail"
	skip "not root, or no setpriv/prlimit: cannot make fork fail"
fi

# --- compare refuses what it cannot compare ------------------------------
bench_json() { # LABEL SCHEMA_VERSION
	printf '{ "schema": "vdsokit-bench", "schema_version": %s, "results": [ { "label": "%s", "paths": { "vdsokit": { "median_ns": 4.5 }, "syscall": { "median_ns": 120 } } } ] }\n' "$2" "$1"
}
bench_json time 1 >"$tmp/a.json"
bench_json other 1 >"$tmp/b.json"
bench_json time '"1"' >"$tmp/s.json"
run compare "$tmp/s.json"
expect_error "compare: a string schema_version is named as such" 2 "schema_version is a string"
grep -q nan "$tmp/err" && not_ok "... and no 'nan'" || ok "... and no 'nan'"
run compare "$tmp/a.json" "$tmp/b.json"
expect_error "compare: no label in common" 2 "no label in common"
run compare "$tmp/a.json" --path syscall
expect_error "compare one file --path syscall: not 'syscall vs syscall'" 2 "syscall with itself"
"$vdsokit" compare - - <"$tmp/a.json" >"$tmp/out" 2>"$tmp/err"
status=$?
expect_error "compare - -: stdin only once" 2 "stdin \\(-\\) can be read only once"

# --- --version takes nothing ------------------------------------------------
run --version extra
expect_error "--version extra" 2 "takes no argument"

# --- bench: dynamic clock names, no duplicate rows, CPUs named -------------
run bench --time 0.2 --functions clock_gettime --clocks -3,-6 --json
json_check "bench --clocks -3,-6: this thread's and this process's CPU clocks, not INVALID" "$tmp/out" \
	'[.results[].label] == ["clock_gettime(CPU_VIRT(thread self))", "clock_gettime(CPU_SCHED(process self))"] and ([.results[].clock_name | test("INVALID")] | any | not)'
# (A MONOTONIC given three times overran the cross-check array: SIGSEGV.)
run bench --time 0.2 --functions clock_gettime --clocks MONOTONIC,1,CLOCK_MONOTONIC --json
expect_status "bench --clocks MONOTONIC,1,CLOCK_MONOTONIC" 0
json_check "... is one row, one label" "$tmp/out" \
	'[.results[].label] == ["clock_gettime(MONOTONIC)"]'
run bench --time 0.2 --functions time,time,tp,thread_pointer --json
expect_status "bench --functions time,time,tp,thread_pointer" 0
json_check "bench --functions time,time,tp,thread_pointer: one row each" "$tmp/out" \
	'[.results[].label] == ["time", "thread_pointer"]'
ncpu=$(nproc --all 2>/dev/null || echo 1)
run bench --time 0.2 --cpu $((ncpu + 3))
expect_error "bench --cpu on a CPU that does not exist names those that do" 2 \
	"cannot pin: .*this process may run on CPUs? [0-9]"

# --- --svg to a bad path: found before measuring, no JSON -------------------
start=$(date +%s)
run bench --time 3 --json --svg "$tmp/no/such/dir/c.svg"
took=$(( $(date +%s) - start ))
if [ "$status" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$took" -lt 2 ] && grep -q "No such file or directory" "$tmp/err"; then
	ok "bench --json --svg BADPATH: exit 2 in ${took}s, before measuring, no JSON"
else
	not_ok "bench --json --svg BADPATH (exit $status, ${took}s, stdout $(wc -c <"$tmp/out") bytes)"
fi

# --- info under valgrind: the vDSO is hidden, not absent ---------------------
if sanitized any; then
	skip "info under valgrind: a sanitizer build does not run under valgrind"
elif have valgrind; then
	valgrind -q "$vdsokit" info >"$tmp/out" 2>"$tmp/err"
	if grep -q "^AT_SYSINFO_EHDR: absent: .*valgrind" "$tmp/out"; then
		ok "info under valgrind says valgrind hides the vDSO"
	else
		not_ok "info under valgrind"
		head -3 "$tmp/out" | diag
	fi
	# One reason, said alike by info, report and doctor (host/no_vdso.c).
	info_why=$(sed -n 's/^AT_SYSINFO_EHDR: absent: //p' "$tmp/out")
	valgrind -q "$vdsokit" report --no-bench >"$tmp/report" 2>/dev/null
	report_why=$(sed -n '/^  vDSO /,/^$/p' "$tmp/report" | sed 's/^ *//' | tr '\n' ' ' |
		sed 's/ *$//' | sed -n 's/.*likely reason: //p')
	valgrind -q "$vdsokit" doctor --json >"$tmp/doctor.json" 2>/dev/null
	doctor_why=$(jq -r '[.findings[].evidence[] | select(startswith("likely reason: "))][0] |
		sub("^likely reason: "; "")' "$tmp/doctor.json" 2>/dev/null)
	if [ -n "$info_why" ] && [ "$info_why" = "$report_why" ] && [ "$info_why" = "$doctor_why" ]; then
		ok "info, report and doctor give one reason for the missing vDSO ($info_why)"
	else
		not_ok "info, report and doctor give one reason for the missing vDSO"
		printf 'info:   %s\nreport: %s\ndoctor: %s\n' "$info_why" "$report_why" "$doctor_why" | diag
	fi
	# A program kept in a directory called valgrind is not run by valgrind.
	mkdir -p "$tmp/valgrind" && cp "$vdsokit" "$tmp/valgrind/vdsokit"
	"$tmp/valgrind/vdsokit" doctor --json >"$tmp/doctor.json" 2>/dev/null
	json_check "a vdsokit in a directory called valgrind is not taken for valgrind" "$tmp/doctor.json" \
		'.environment.emulator == null and all(.findings[]; .id != "valgrind")'
	if awk 'length > 79 { bad = 1 } END { exit bad }' "$tmp/report"; then
		ok "report under valgrind fits 79 columns"
	else
		not_ok "report under valgrind fits 79 columns"
		awk 'length > 79' "$tmp/report" | diag
	fi
else
	skip "valgrind not installed"
fi

done_testing
