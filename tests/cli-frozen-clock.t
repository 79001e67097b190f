#!/bin/sh
# SPDX-License-Identifier: MIT
# A C library clock replaced by a preloaded object that stands still (a
# frozen libfaketime): no command may hang on it, as every one did when the
# tool timed itself with the C library's clock_gettime (a deadline that
# never came, a clock step that was never seen); doctor names the shim, the
# functions it replaces (gettimeofday and time as well as clock_gettime)
# and, with the evidence, that its clock stands still.
. "$(dirname "$0")/lib.sh"

if ! have cc || sanitized any; then
	echo "1..0 # SKIP needs cc and a build without sanitizers (their runtimes intercept the clock)"
	exit 0
fi
cat >"$tmp/frozen.c" <<'EOF2'
#include <time.h>
int clock_gettime(clockid_t c, struct timespec *ts) { (void)c; ts->tv_sec = 1; ts->tv_nsec = 0; return 0; }
EOF2
cat >"$tmp/gtod.c" <<'EOF2'
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
int gettimeofday(struct timeval *tv, void *tz) { return (int)syscall(SYS_gettimeofday, tv, tz); }
time_t time(time_t *t) { return (time_t)syscall(SYS_time, t); }
EOF2
if ! cc -shared -fPIC -o "$tmp/frozen.so" "$tmp/frozen.c" 2>"$tmp/cc.err" ||
   ! cc -shared -fPIC -o "$tmp/gtod.so" "$tmp/gtod.c" 2>>"$tmp/cc.err"; then
	echo "1..0 # SKIP cannot build the shims: $(head -1 "$tmp/cc.err")"
	exit 0
fi

for cmd in doctor report "bench --time 0.2" "bench --time 0.2 --latency" "verify --time 0.2" \
	"metrics --time 0.1"; do
	# shellcheck disable=SC2086
	LD_PRELOAD=$tmp/frozen.so timeout 20 "$vdsokit" $cmd >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -eq 124 ]; then
		not_ok "$cmd under a frozen C library clock: still running after 20 s"
	elif [ $st -ge 2 ]; then
		not_ok "$cmd under a frozen C library clock: exit $st"
		head -3 "$tmp/err" | diag
	else
		ok "$cmd under a frozen C library clock ends (exit $st)"
	fi
done

LD_PRELOAD=$tmp/frozen.so timeout 20 "$vdsokit" doctor --json >"$tmp/frozen.json" 2>/dev/null
json_check "doctor: a frozen clock_gettime is a finding whose evidence says it stands still" \
	"$tmp/frozen.json" 'any(.findings[]; .id == "libc-clock-interposed" and
	 (.title | test("clock_gettime.*frozen.so")) and any(.evidence[]; test("stands still")))'

LD_PRELOAD=$tmp/gtod.so timeout 20 "$vdsokit" doctor --json >"$tmp/gtod.json" 2>/dev/null
json_check "doctor: interposed gettimeofday and time are a finding naming both (not clock_gettime)" \
	"$tmp/gtod.json" 'any(.findings[]; .id == "libc-clock-interposed" and
	 (.title | test("gettimeofday, time .*gtod.so")) and (.title | test("clock_gettime") | not)
	 and all(.evidence[]; test("stands still") | not))'

done_testing
