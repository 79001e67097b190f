# SPDX-License-Identifier: MIT
# Shared by the shell tests (tests/*.t): where the build and vdsokit are, TAP
# output, and a runner that captures stdout, stderr and the exit status of
# one command.  Sourced, not run (prove only runs *.t).

set -u
LC_ALL=C.UTF-8
export LC_ALL

top=$(cd "$(dirname "$0")/.." && pwd)
build=${VDSOKIT_BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
vdsokit=$build/vdsokit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
diag() { sed 's/^/#   /'; }
done_testing() { echo "1..$n"; [ "$failed" -eq 0 ]; }

# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
	what=$1
	shift
	if "$@" >"$tmp/check.out" 2>&1; then
		ok "$what"
	else
		not_ok "$what"
		head -20 "$tmp/check.out" | diag
	fi
}

# The CLI's objects in $build but main.o, named from the tree's sources (not
# by listing $build, which may still hold objects of sources since moved);
# empty when any is missing.
cli_objects() {
	_objs=$( (cd "$top" && ls cli/*.c cli/*/*.c) | grep -vx 'cli/main\.c' |
		sed "s|^\(.*\)\.c\$|$build/\1.o|")
	for _o in $_objs; do
		[ -f "$_o" ] || return 0
	done
	echo "$_objs"
}

# run ARGS...: runs vdsokit, leaving $tmp/out, $tmp/err and $status.
run() {
	"$vdsokit" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
}

# run_within SECONDS ARGS...: run, for a command that may block (a FIFO's
# open): killed after SECONDS (exit 143), so a hang is a failure, not a
# test that never ends.
run_within() {
	_limit=$1
	shift
	"$vdsokit" "$@" >"$tmp/out" 2>"$tmp/err" &
	_pid=$!
	( sleep "$_limit"; kill "$_pid" 2>/dev/null ) &
	_watchdog=$!
	wait "$_pid"
	status=$?
	kill "$_watchdog" 2>/dev/null
}

# expect_status DESCRIPTION WANT: the last run's exit status.
expect_status() {
	if [ "$status" -eq "$2" ]; then
		ok "$1 (exit $2)"
	else
		not_ok "$1 (exit $status, want $2)"
		head -5 "$tmp/err" | diag
	fi
}

# expect_error DESCRIPTION WANT_STATUS STDERR_REGEX: exit status, the message
# on stderr, and nothing on stdout.
expect_error() {
	if [ "$status" -eq "$2" ] && grep -Eq -- "$3" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$1 (exit $2: $(head -1 "$tmp/err"))"
	else
		not_ok "$1 (exit $status, want $2 and stderr matching /$3/, empty stdout)"
		{ echo "stderr:"; head -5 "$tmp/err"; echo "stdout:"; head -5 "$tmp/out"; } | diag
	fi
}

have() { command -v "$1" >/dev/null 2>&1; }

# sanitized [address|undefined|any] [FILE]: FILE (default: $vdsokit) is built
# with AddressSanitizer, UndefinedBehaviorSanitizer, or either (the default).
# Seen in the names of the runtimes' entry points the binary calls, which a
# stripped binary keeps too.
sanitized() {
	case ${1:-any} in
	address) marks='__asan_init' ;;
	undefined) marks='__ubsan_handle_' ;;
	any) marks='__asan_init\|__ubsan_handle_' ;;
	*)
		echo "sanitized: unknown sanitizer '$1' (address, undefined or any)" >&2
		return 2
		;;
	esac
	grep -qa "$marks" "${2:-$vdsokit}"
}

# json_check DESCRIPTION FILE JQ_FILTER: jq -e FILTER must hold (an empty
# FILE fails: jq -e accepts no input at all).
json_check() {
	if ! have jq; then
		skip "$1: jq not installed"
	elif [ -s "$2" ] && jq -e "$3" "$2" >"$tmp/jq.out" 2>&1; then
		ok "$1"
	else
		not_ok "$1"
		{ echo "jq -e '$3'"; head -5 "$tmp/jq.out"; } | diag
	fi
}

if [ ! -x "$vdsokit" ]; then
	echo "1..0 # SKIP $vdsokit not built (make)"
	exit 0
fi

# cross_vdsokit TRIPLE DIR: builds vdsokit statically with TRIPLE-gcc-12 into
# $build/DIR (log in $tmp/make.log); fails when that compiler is missing (a
# build that fails with it present is also a not ok), and
# for i686 when this kernel does not execute i386 binaries (exit 126: no
# IA32 emulation), which the callers' skip lines name.
cross_vdsokit() {
	# make test's quick loop builds nothing for another architecture.
	if [ -n "${VDSOKIT_NO_CROSS:-}" ]; then
		echo "no cross builds in make test (make check has them)" >"$tmp/make.log"
		return 1
	fi
	if ! command -v "$1-gcc-12" >/dev/null; then
		echo "no $1-gcc-12" >"$tmp/make.log"
		return 1
	fi
	# A compiler that is there and fails is the tree's fault: a failure, not a skip.
	if ! make -s -C "$top" CC="$1-gcc-12" AR="$1-ar" BUILD="$build/$2" LDFLAGS=-static \
		"$build/$2/vdsokit" >"$tmp/make.log" 2>&1; then
		not_ok "vdsokit builds with $1-gcc-12"
		tail -20 "$tmp/make.log" | diag
		return 1
	fi
	case $1 in
	i686-*)
		"$build/$2/vdsokit" --version >/dev/null 2>&1
		[ $? -ne 126 ] || { echo "this kernel does not execute i386 binaries" >"$tmp/make.log"; return 1; }
		;;
	esac
}
