#!/bin/sh
# SPDX-License-Identifier: MIT
# Output files by what the path names: a path to an open descriptor
# (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is written through it, at its
# offset, never replaced; a dangling symlink is followed and survives a
# failed write; bench and metrics open their file only after measuring,
# and INT, TERM or HUP while measuring, and any terminating signal while
# the temporary exists, leave no temporary file behind, the old file and a symlink as they were
# (exit 128 + signal).
. "$(dirname "$0")/lib.sh"

cd "$tmp" || exit 1

# { before; vdsokit ... -o PATH; after; } >> log keeps every line.
appends() {
	what=$1
	shift
	printf 'before\n' >"$tmp/log"
	{ echo middle; "$@"; echo after; } >>"$tmp/log" 2>"$tmp/err" 3>>"$tmp/log"
	if [ "$(head -1 "$tmp/log")" = before ] && [ "$(sed -n 2p "$tmp/log")" = middle ] &&
	   [ "$(tail -1 "$tmp/log")" = after ] && [ "$(wc -l <"$tmp/log")" -gt 4 ]; then
		ok "$what: written into the open file, the shell's lines kept"
	else
		not_ok "$what: written into the open file, the shell's lines kept"
		{ head -3 "$tmp/log"; echo ...; tail -2 "$tmp/log"; cat "$tmp/err"; } | diag
	fi
}
appends "metrics -o /dev/stdout" "$vdsokit" metrics --time 0.2 -o /dev/stdout
appends "metrics -o /proc/self/fd/1" "$vdsokit" metrics --time 0.2 -o /proc/self/fd/1
appends "metrics -o /dev/fd/3" "$vdsokit" metrics --time 0.2 -o /dev/fd/3
ln -s /dev/stdout "$tmp/to-stdout"
appends "metrics -o a symlink to /dev/stdout" "$vdsokit" metrics --time 0.2 -o "$tmp/to-stdout"

# A descriptor that is not open is an error, not a file created.
run metrics --time 0.1 -o /dev/fd/9
expect_error "metrics -o /dev/fd/9 (not open)" 2 "/dev/fd/9: Bad file descriptor"

# A dangling symlink: a failed write removes neither the link nor leaves a
# partial target, nor a temporary.
ln -s target.svg "$tmp/link.svg"
(ulimit -f 1; "$vdsokit" bench --time 0.1 --svg "$tmp/link.svg" >/dev/null 2>"$tmp/err")
status=$?
if [ "$status" = 2 ] && [ -L "$tmp/link.svg" ] && [ ! -e "$tmp/target.svg" ] &&
   ! ls -a "$tmp" | grep -q '^\.vdsokit-'; then
	ok "a failed write through a dangling symlink keeps the link, leaves no file (exit 2)"
else
	not_ok "a failed write through a dangling symlink keeps the link, leaves no file (exit $status)"
	{ cat "$tmp/err"; ls -la "$tmp"; } | diag
fi
"$vdsokit" bench --time 0.1 --svg "$tmp/link.svg" >/dev/null 2>"$tmp/err"
if [ -L "$tmp/link.svg" ] && grep -q '<svg' "$tmp/target.svg"; then
	ok "writing through a dangling symlink creates its target, the link stays"
else
	not_ok "writing through a dangling symlink creates its target, the link stays"
	{ cat "$tmp/err"; ls -la "$tmp"; } | diag
fi

# Interrupted (INT, TERM, HUP): exit 128 + signal once the file is cleaned
# up, no temporary left in the directory, the previous contents whole, a
# symlink still a symlink to the same file.  bench --svg and metrics -o
# share the output layer; both open their file only after measuring.
# A background job of sh starts with INT ignored, and a run under nohup
# with HUP ignored, which the tool keeps (nohup's promise): env
# --default-signal puts them back for the test.
if ! have perl; then
	skip "signals: no perl to tell an exit from a death by signal"
	done_testing
	exit 0
fi
if env --default-signal=INT,HUP true 2>/dev/null; then
	restore_signals="env --default-signal=INT,HUP"
else
	restore_signals=""
fi
# run_status NAME COMMAND...: runs COMMAND with its pid in $tmp/NAME.pid, then
# writes "exit N" or "signal N" to $tmp/NAME.status: the shell's $? says
# 128 + N for both, and the tool promises an exit, after its cleanup.
run_status() {
	name=$1
	shift
	rm -f "$tmp/$name.pid" "$tmp/$name.status"
	perl -e 'my ($pidfile, $statusfile, @cmd) = @ARGV;
		 my $pid = fork // die "fork: $!";
		 if (!$pid) { exec { $cmd[0] } @cmd; exit 127 }
		 open(my $p, ">", $pidfile) or die; print $p $pid; close $p;
		 waitpid($pid, 0);
		 open(my $f, ">", "$statusfile.new") or die;
		 print $f ($? & 127 ? "signal " . ($? & 127) : "exit " . ($? >> 8)); close $f;
		 rename("$statusfile.new", $statusfile)' "$tmp/$name.pid" "$tmp/$name.status" "$@"
}
# signal_started SIG NAME...: once each NAME's pid is known, sends it SIG.
signal_started() {
	sig=$1
	shift
	for name; do
		tries=0
		while [ ! -s "$tmp/$name.pid" ] && [ $tries -lt 100 ]; do
			sleep 0.1
			tries=$((tries + 1))
		done
		kill -"$sig" "$(cat "$tmp/$name.pid")"
	done
}
status_of() { cat "$tmp/$1.status" 2>/dev/null || echo "no status"; }

# prepare DIR: a previous chart behind a symlink, a previous metrics file.
prepare() {
	mkdir "$1"
	printf 'previous chart\n' >"$1/real.svg"
	ln -s real.svg "$1/link.svg"
	printf 'previous metrics\n' >"$1/metrics.prom"
}
# intact DIR WHAT: what the signal left in DIR is what was there before.
intact() {
	left=$(ls -A "$1" | tr '\n' ' ')
	if [ "$left" = "link.svg metrics.prom real.svg " ] && [ -L "$1/link.svg" ] &&
	   [ "$(readlink "$1/link.svg")" = real.svg ] &&
	   [ "$(cat "$1/real.svg")" = "previous chart" ] &&
	   [ "$(cat "$1/metrics.prom")" = "previous metrics" ]; then
		return 0
	fi
	echo "left: $left; real.svg: $(head -c 60 "$1/real.svg"); metrics.prom: $(head -c 60 "$1/metrics.prom")"
	return 1
}

# While measuring (--time 4, the signal after 1 s): a new chart, a chart
# through the symlink and a metrics file, at once.
for pair in INT:2 TERM:15 HUP:1; do
	sig=${pair%:*}
	want=$((128 + ${pair#*:}))
	if [ "$sig" != TERM ] && [ -z "$restore_signals" ]; then
		skip "SIG$sig while measuring: env has no --default-signal to undo an inherited ignored $sig"
		continue
	fi
	d=$tmp/measuring-$sig
	prepare "$d"
	run_status new $restore_signals "$vdsokit" bench --time 4 --svg "$d/new.svg" >/dev/null 2>&1 &
	p1=$!
	run_status link $restore_signals "$vdsokit" bench --time 4 --svg "$d/link.svg" >/dev/null 2>&1 &
	p2=$!
	run_status metrics $restore_signals "$vdsokit" metrics --time 4 -o "$d/metrics.prom" >/dev/null 2>&1 &
	p3=$!
	sleep 1
	signal_started "$sig" new link metrics
	wait "$p1" "$p2" "$p3"
	got="$(status_of new), $(status_of link), $(status_of metrics)"
	if why=$(intact "$d") && [ "$got" = "exit $want, exit $want, exit $want" ]; then
		ok "SIG$sig while measuring: bench --svg (new, through a symlink) and metrics -o exit $want, leave the old files whole and no temporary"
	else
		not_ok "SIG$sig while measuring: $got (want exit $want), $why"
	fi
done

# nohup's promise: a HUP ignored when the tool starts stays ignored, and the
# run ends as if none had come.
d=$tmp/nohup
prepare "$d"
run_status nohup sh -c 'trap "" HUP; exec "$0" bench --time 2 --svg "$1"' "$vdsokit" "$d/new.svg" \
	>/dev/null 2>&1 &
p1=$!
sleep 1
signal_started HUP nohup
wait "$p1"
if [ "$(status_of nohup)" = "exit 0" ] && grep -q '<svg' "$d/new.svg" 2>/dev/null; then
	ok "SIGHUP ignored at start (nohup) stays ignored: bench --svg ends with exit 0 and writes its chart"
else
	not_ok "SIGHUP ignored at start (nohup) stays ignored: $(status_of nohup)"
fi

# signal_number NAME: its number here (dash's kill -l takes numbers only).
signal_number() {
	_i=1
	while [ $_i -lt 65 ]; do
		[ "$(kill -l $_i 2>/dev/null)" = "$1" ] && { echo $_i; return; }
		_i=$((_i + 1))
	done
	echo 0
}

# Between the last byte and the rename, the one moment the temporary
# exists: strace refuses the rename and delivers the signal there (the
# call never happens, as if the signal had come first).
if ! have strace || ! strace -qq -o /dev/null true 2>/dev/null; then
	skip "a signal while the temporary exists: no strace, or ptrace not allowed here"
else
	# Every signal whose default action ends the process, not only INT, TERM
	# and HUP: QUIT, USR1, USR2 and ALRM left the temporary behind.
	for sig in INT TERM HUP QUIT USR1 USR2 ALRM; do
		want=$((128 + $(signal_number "$sig")))
		d=$tmp/writing-$sig
		prepare "$d"
		all=""
		for cmd in "bench --time 0.1 --svg $d/link.svg" "metrics --time 0.1 -o $d/metrics.prom"; do
			# shellcheck disable=SC2086
			run_status window $restore_signals strace -f -qq -o "$tmp/strace.log" -e trace=/^rename \
				-e "inject=/^rename:error=EINTR:signal=$sig" "$vdsokit" $cmd >/dev/null 2>&1
			status=$(status_of window)
			if ! grep -q 'rename.*/\.vdsokit-.*INJECTED' "$tmp/strace.log"; then
				all="$all; ${cmd%% *}: no rename of a temporary seen"
			elif [ "$status" != "exit $want" ]; then
				all="$all; ${cmd%% *}: $status"
			fi
		done
		if why=$(intact "$d") && [ -z "$all" ]; then
			ok "SIG$sig with the temporary written, before its rename: bench --svg through a symlink and metrics -o exit $want, remove it, keep the old files"
		else
			not_ok "SIG$sig with the temporary written (want exit $want)$all; $why"
		fi
	done
fi

# A bind-mounted file: rename() over a mount point is EBUSY.  The output is
# copied into it in place, exit 0, and no temporary is left (root only).
if [ "$(id -u)" = 0 ] && : >"$tmp/bm-src" && printf 'old\n' >"$tmp/bm-target" &&
   mount --bind "$tmp/bm-src" "$tmp/bm-target" 2>/dev/null; then
	"$vdsokit" dump -o "$tmp/bm-target" >"$tmp/out" 2>"$tmp/err"
	st=$?
	left=$(ls -A "$tmp" | grep '^\.vdsokit-')
	if [ $st = 0 ] && [ -z "$left" ] && [ "$(head -c 4 "$tmp/bm-src" | tail -c 3)" = ELF ] &&
	   [ ! -s "$tmp/err" ]; then
		ok "dump -o a bind-mounted file: written in place through the mount (exit 0)"
	else
		not_ok "dump -o a bind-mounted file: exit $st, temporaries: ${left:-none}"
		head -3 "$tmp/err" | diag
	fi
	umount "$tmp/bm-target"
else
	skip "dump -o a bind-mounted file: needs root and mount --bind"
fi

done_testing
