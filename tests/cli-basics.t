#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit's command line: help, version, dispatch, and the exit status and
# message of every kind of usage error, for every subcommand.
. "$(dirname "$0")/lib.sh"

commands="report info inspect dump bench compare verify abi doctor metrics"

run --version
if [ "$status" -eq 0 ] && grep -Eq '^vdsokit [0-9]+\.[0-9]+\.[0-9]+ ' "$tmp/out"; then
	ok "--version: $(cat "$tmp/out")"
else
	not_ok "--version"
fi

run --help
expect_status "--help" 0
for c in $commands; do
	if grep -q "^  $c " "$tmp/out"; then ok "--help lists $c"; else not_ok "--help lists $c"; fi
done

for c in report info inspect dump bench compare metrics; do
	run "$c" --help
	if [ "$status" -eq 0 ] && grep -q "^Usage: vdsokit $c" "$tmp/out"; then
		ok "$c --help prints its usage (exit 0)"
	else
		not_ok "$c --help (exit $status)"
	fi
	run help "$c"
	if [ "$status" -eq 0 ] && grep -q "^Usage: vdsokit $c" "$tmp/out"; then
		ok "help $c is $c --help"
	else
		not_ok "help $c (exit $status)"
	fi
	run "$c" --no-such-flag
	expect_error "$c --no-such-flag" 2 "^vdsokit $c: unknown option '--no-such-flag'"
	run "$c" -Z
	expect_error "$c -Z" 2 "^vdsokit $c: unknown option '-Z'"
done

run nosuchcommand
expect_error "unknown command" 2 "^vdsokit: unknown command 'nosuchcommand'"
run --bogus
expect_error "unknown top-level option" 2 "^vdsokit: unknown option '--bogus'"

# Options that need a value, given none.
run bench --time
expect_error "bench --time without a value" 2 "^vdsokit bench: option '--time' needs a value"
run dump -o
expect_error "dump -o without a value" 2 "^vdsokit dump: option '-o' needs a value"

# Values out of range or of the wrong kind.
run bench --time abc
expect_error "bench --time abc" 2 "^vdsokit bench: --time: 'abc' is not a number"
run bench --time -1
expect_error "bench --time -1" 2 "^vdsokit bench: --time: '-1' is not a number in"
run bench --cpu x
expect_error "bench --cpu x" 2 "^vdsokit bench: --cpu: 'x' is not an integer"
run bench --functions clock_gettime,frobnicate
expect_error "bench --functions with an unknown name" 2 "unknown function 'frobnicate'"
run bench --clocks MONOTONIC,NOT_A_CLOCK
expect_error "bench --clocks with an unknown clock" 2 "unknown clock 'NOT_A_CLOCK'"
run bench --json --csv
expect_error "bench --json --csv" 2 "exclusive"
run bench extra
expect_error "bench with an operand" 2 "unexpected argument 'extra'"
run info extra
expect_error "info with an operand" 2 "unexpected argument 'extra'"
run report extra
expect_error "report with an operand" 2 "unexpected argument 'extra'"
run compare
expect_error "compare without files" 2 "no BEFORE.json given"
run compare a b c
expect_error "compare with three files" 2 "at most two files"
run compare --path nowhere a
expect_error "compare --path unknown" 2 "--path: 'nowhere' is not one of"

# No command: the report.
"$vdsokit" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 0 ] && grep -q '^vdsokit report' "$tmp/out"; then
	ok "no command runs report"
else
	not_ok "no command runs report (exit $status)"
fi

# A closed stdout is an error, not a silent success.
if [ -w /dev/full ]; then
	: >"$tmp/out"
	"$vdsokit" info >/dev/full 2>"$tmp/err"
	status=$?
	expect_error "info > /dev/full" 2 "error writing the output"
else
	skip "no /dev/full"
fi

done_testing
