#!/bin/sh
# SPDX-License-Identifier: MIT
# Long work on a terminal: bench and verify show one progress line on
# stderr, redrawn in place and cleared at the end, only when stderr is a
# terminal (through a pty made by script(1)); in a pipe or file nothing
# of it.  And bench's --time is what the run takes: a budget past 4000
# rounds makes longer batches, not a shorter run.
. "$(dirname "$0")/lib.sh"

esc=$(printf '\033')
cr=$(printf '\r')

# on_pty FILE COMMAND: runs COMMAND (a shell line) with stdout, stderr
# and stdin on a pty, what the pty showed in FILE.
on_pty() {
	script -qec "$2" /dev/null </dev/null >"$1" 2>&1
}

if have script && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	on_pty "$tmp/bench.pty" "$vdsokit bench --functions time --time 1 >'$tmp/bench.out'"
	lines=$(tr "$cr" '\n' <"$tmp/bench.pty" | grep -c 'vdsokit bench: .* of ~1\.0 s')
	if [ "$lines" -ge 3 ]; then
		ok "bench on a terminal: the progress line is redrawn ($lines times)"
	else
		not_ok "bench on a terminal: the progress line is redrawn ($lines times, want >= 3)"
		od -c "$tmp/bench.pty" | head -10 | diag
	fi
	# The last bytes on the terminal erase the line: nothing is left behind.
	if [ "$(tail -c 4 "$tmp/bench.pty" | od -An -c | tr -d ' ')" = '\r033[K' ]; then
		ok "bench on a terminal: the line is cleared at the end"
	else
		not_ok "bench on a terminal: the line is cleared at the end"
		tail -c 80 "$tmp/bench.pty" | od -c | diag
	fi
	check "bench on a terminal: stdout has the results, no progress" sh -c \
		"grep -q '^time ' '$tmp/bench.out' && ! grep -q '$esc' '$tmp/bench.out'"

	on_pty "$tmp/verify.pty" "$vdsokit verify --time 0.5 --threads 2 >'$tmp/verify.out'"
	check "verify on a terminal: progress names the checks as they run" sh -c \
		"tr '$cr' '\n' <'$tmp/verify.pty' | grep -q 'vdsokit verify: clock_gettime, ' &&
		 tr '$cr' '\n' <'$tmp/verify.pty' | grep -q 'vdsokit verify: monotonic, 2 threads, '"
	# A warning (the raw vDSO's DIFF on Linux 6.17/6.18) starts on a clean line.
	check "verify on a terminal: anything else on stderr starts on an erased line" sh -c \
		"! tr '$cr' '\n' <'$tmp/verify.pty' | grep -q 's[^ ]*vdsokit verify: warning'"
else
	skip "progress on a terminal: script(1) (bsdutils) not installed or no pty"
	skip "progress cleared: no pty"
	skip "progress, stdout: no pty"
	skip "verify progress: no pty"
	skip "verify warning on a clean line: no pty"
fi

# Not a terminal: not a byte of progress.
run bench --functions time --time 0.3
if [ "$status" -eq 0 ] && [ ! -s "$tmp/err" ]; then
	ok "bench with stderr in a file: stderr stays empty"
else
	not_ok "bench with stderr in a file: stderr stays empty (exit $status)"
	od -c "$tmp/err" | head -5 | diag
fi
run verify --time 0.3 --threads 2
check "verify with stderr in a file: no carriage return or escape on stderr" sh -c \
	"! grep -q '[$cr$esc]' '$tmp/err'"
"$vdsokit" bench --functions time --time 0.3 --json 2>&1 >/dev/null | cat >"$tmp/pipe.err"
check "bench with stderr in a pipe: nothing on it" test ! -s "$tmp/pipe.err"

# --time is the time the measurement takes (loosely: >= 90 % of it).
start=$(date +%s.%N)
run bench --functions time --time 2 --json
end=$(date +%s.%N)
wall=$(echo "$end - $start" | bc)
if [ "$status" -eq 0 ] && [ "$(echo "$wall >= 1.8" | bc)" -eq 1 ]; then
	ok "bench --functions time --time 2 takes $wall s (>= 1.8)"
else
	not_ok "bench --functions time --time 2 takes $wall s (want >= 1.8, exit $status)"
fi
cp "$tmp/out" "$tmp/long.json"
json_check "... with batches longer than 50 us, at most max_batches means per path" "$tmp/long.json" \
	'.method.max_batches as $max | .method.batch_target_ns > 50000 and $max > 0 and
	 ([.results[].paths[] | select(.available) | .batches <= 2 * $max] | all)'
# A narrow terminal: every redraw fits in one line (a wrapped line cannot be
# erased by \r and ESC[K, and each redraw would leave one behind).
if have script && have stty && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	on_pty "$tmp/narrow.pty" "stty cols 40; $vdsokit bench --time 1 >/dev/null"
	widest=$(tr "$cr" '\n' <"$tmp/narrow.pty" | sed -n "s/^$esc\[K//p" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
	redraws=$(tr "$cr" '\n' <"$tmp/narrow.pty" | grep -c "^$esc\[K.")
	if [ "$redraws" -ge 2 ] && [ "$widest" -le 39 ]; then
		ok "a 40-column terminal: $redraws redraws, the widest $widest columns"
	else
		not_ok "a 40-column terminal: $redraws redraws, the widest $widest columns (want <= 39)"
		tr "$cr" '\n' <"$tmp/narrow.pty" | sed -n "s/^$esc\[K//p" | head -5 | diag
	fi
else
	skip "a 40-column terminal: no script(1) or stty"
fi

# Ended by a signal (TERM, INT, HUP) while it draws: the handler erases the
# line too, or the terminal keeps a stale one.  The signal comes once the
# terminal shows the line (script(1) relays it to the file as it comes),
# not after a fixed delay, which a loaded machine under ASan outran.
if have script && script -qec true /dev/null </dev/null >/dev/null 2>&1; then
	on_pty "$tmp/killed.pty" "$vdsokit verify --time 20 >/dev/null & p=\$!; i=0
		while [ \$i -lt 150 ] && ! grep -q 'vdsokit verify: ' '$tmp/killed.pty'; do sleep 0.1; i=\$((i + 1)); done
		kill -TERM \$p; wait \$p; echo rc=\$?"
	if grep -q 'rc=143' "$tmp/killed.pty" &&
	   [ "$(sed 's/rc=143.*//' "$tmp/killed.pty" | tr -d '\n' | tail -c 4 | od -An -c | tr -d ' ')" = '\r033[K' ]; then
		ok "verify ended by SIGTERM on a terminal: the progress line is erased (exit 143)"
	else
		not_ok "verify ended by SIGTERM on a terminal: the progress line is erased (exit 143)"
		tail -c 100 "$tmp/killed.pty" | od -c | diag
	fi
else
	skip "progress erased on SIGTERM: no pty"
fi

done_testing
