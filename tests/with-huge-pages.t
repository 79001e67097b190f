#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/with-huge-pages, which .ci/run wraps `make run && make check` in:
# the command runs with the setting "always", the machine's setting comes
# back however the command ends (its exit status, a signal), the command's
# exit status is the script's, and where the setting cannot be read or
# written the command runs all the same.  A file stands in for sysfs.
. "$(dirname "$0")/lib.sh"
whp=$top/scripts/with-huge-pages
file=$tmp/enabled
VDSOKIT_THP_FILE=$file
export VDSOKIT_THP_FILE

echo "always [madvise] never" >"$file"
"$whp" sh -c 'cat "$VDSOKIT_THP_FILE" >"$0/during"; exit 3' "$tmp" 2>"$tmp/err"
status=$?
[ "$(cat "$tmp/during")" = always ] &&
	ok "the command runs with huge pages always" ||
	{ not_ok "the command runs with huge pages always"; diag <"$tmp/during"; }
[ "$(cat "$file")" = madvise ] &&
	ok "the machine's setting (madvise) is back after the command" ||
	{ not_ok "the machine's setting (madvise) is back after the command"; diag <"$file"; }
[ $status -eq 3 ] && ok "the command's exit status (3) is the script's" ||
	not_ok "the command's exit status (3) is the script's (got $status)"
grep -q 'always, while sh runs (the machine.s setting: madvise)' "$tmp/err" &&
	ok "it says what it changed, on stderr" ||
	{ not_ok "it says what it changed, on stderr"; diag <"$tmp/err"; }

# A CI runner that gives up sends SIGTERM to the whole process group: the
# wrapper leads its own (setsid), as a job of CI's would.
echo "always madvise [never]" >"$file"
setsid -w "$whp" sh -c 'ps -o pgid= -p $$ >"$0/pgid"; exec sleep 30' "$tmp" 2>/dev/null &
wrapper=$!
for _ in $(seq 100); do [ -s "$tmp/pgid" ] && break; sleep 0.1; done
started=$(date +%s)
kill -TERM "-$(tr -d ' ' <"$tmp/pgid")"
wait "$wrapper"
status=$?
[ "$(cat "$file")" = never ] && [ $status -ne 0 ] && [ $(($(date +%s) - started)) -lt 20 ] &&
	ok "its process group terminated by SIGTERM: the setting (never) is back, the status a failure ($status)" ||
	not_ok "its process group terminated by SIGTERM: the setting is back (file: $(cat "$file"), status $status, $(($(date +%s) - started)) s)"

echo "[always] madvise never" >"$file"
"$whp" true 2>"$tmp/err"
[ "$(cat "$file")" = "[always] madvise never" ] && [ ! -s "$tmp/err" ] &&
	ok "already always: nothing is written, nothing said" ||
	not_ok "already always: nothing is written (file: $(cat "$file"))"

VDSOKIT_THP_FILE=$tmp/no/such/dir/enabled "$whp" sh -c 'exit 5' 2>"$tmp/err"
status=$?
[ $status -eq 5 ] && [ ! -e "$tmp/no" ] &&
	ok "no such setting (a container's /sys): the command runs as it is, its status kept" ||
	not_ok "no such setting: the command runs as it is (status $status)"

# Not root: the setting cannot be written; the command runs as it is.
echo "always [madvise] never" >"$file"
chmod 755 "$tmp" && chmod 644 "$file"
if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$whp" sh -c 'exit 6' 2>"$tmp/err"
	status=$?
	[ $status -eq 6 ] && [ "$(cat "$file")" = "always [madvise] never" ] && [ ! -s "$tmp/err" ] &&
		ok "not root: nothing written, the command runs as it is, its status kept" ||
		{ not_ok "not root: the command runs as it is (status $status, file: $(cat "$file"))"; diag <"$tmp/err"; }
else
	skip "not root: setpriv cannot drop to nobody here"
fi

"$whp" >/dev/null 2>&1
[ $? -eq 64 ] && ok "no command: a usage error (64)" || not_ok "no command: a usage error (64)"
done_testing
