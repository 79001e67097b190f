#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit report, info, bench --time 0.2 and verify --time 0.2 under
# valgrind memcheck: no invalid access, no uninitialised value used, no
# definite or indirect leak, exit status 0.  On x86 valgrind hides the
# vDSO (no AT_SYSINFO_EHDR), so each command must also say that the
# library took the syscall path.  A subcommand this build lacks is skipped.
set -u
build=${VDSOKIT_BUILD:-build}
cli=$build/vdsokit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..4"
if ! command -v valgrind >/dev/null 2>&1 || [ ! -x "$cli" ]; then
	for i in 1 2 3 4; do echo "ok $i # SKIP valgrind not installed or $cli not built"; done
	exit 0
fi
case $(uname -m) in x86_64 | i?86) hidden=1 ;; *) hidden=0 ;; esac

n=0
# run "ARGS" PATTERN: PATTERN (grep -E) must match the output when the vDSO is hidden.
run() {
	n=$((n + 1))
	args=$1 pattern=$2
	# shellcheck disable=SC2086
	if "$cli" $args --help 2>&1 | grep -q "not available in this build"; then
		echo "ok $n # SKIP vdsokit $args: not in this build"
		return
	fi
	# shellcheck disable=SC2086
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--log-file="$tmp/vg.log" "$cli" $args >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -ne 0 ] || [ -s "$tmp/vg.log" ]; then
		echo "not ok $n - vdsokit $args under valgrind: exit $status (99: memcheck errors)"
		head -40 "$tmp/vg.log" "$tmp/err" | sed 's/^/# /'
		return
	fi
	if [ "$hidden" = 1 ] && ! grep -Eq "$pattern" "$tmp/out"; then
		echo "not ok $n - vdsokit $args under valgrind: clean, but the output does not say the syscall path was taken (/$pattern/)"
		head -20 "$tmp/out" | sed 's/^/# /'
		return
	fi
	echo "ok $n - vdsokit $args: clean under memcheck$([ "$hidden" = 1 ] && echo ", no vDSO: syscall path reported")"
}

run "report" "^ *clock_gettime +syscall"
run "info" "^ *clock_gettime +syscall"
run "bench --time 0.2" "^clock_gettime\(MONOTONIC\) +syscall"
run "verify --time 0.2" "every path is the syscall|vDSO not mapped"
