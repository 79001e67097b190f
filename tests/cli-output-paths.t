#!/bin/sh
# SPDX-License-Identifier: MIT
# Output files by what the path names: a path to an open descriptor
# (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is written through it, at its
# offset, never replaced; a dangling symlink is followed and survives a
# failed write; bench opens its chart only after measuring, and INT, TERM
# or HUP leave no temporary file behind (exit 128 + signal).
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

# Killed while measuring: no temporary left, exit 128 + signal.
for pair in TERM:15 HUP:1; do
	sig=${pair%:*}
	mkdir "$tmp/$sig"
	"$vdsokit" bench --time 4 --svg "$tmp/$sig/chart.svg" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -"$sig" "$pid"
	wait "$pid"
	status=$?
	want=$((128 + ${pair#*:}))
	left=$(ls -A "$tmp/$sig")
	if [ -z "$left" ] && [ "$status" = "$want" ]; then
		ok "bench --svg killed by SIG$sig while measuring leaves nothing behind (exit $want)"
	else
		not_ok "bench --svg killed by SIG$sig: exit $status (want $want), left: ${left:-nothing}"
	fi
done

done_testing
