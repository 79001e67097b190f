#!/bin/sh
# SPDX-License-Identifier: MIT
# The files vdsokit writes (dump -o, --svg), as vdsokit(1) OUTPUT FILES
# promises: "-" is stdout; a file is replaced atomically only where a rename
# keeps its owner, mode and links, else written in place; never an input;
# a size limit or a full disk is an error message, not a death, and leaves
# no temporary file behind.
. "$(dirname "$0")/lib.sh"

cp "$top/tests/data/bench-small.json" "$tmp/bench.json"
"$vdsokit" dump >"$tmp/ref.so" 2>/dev/null
if [ ! -s "$tmp/ref.so" ]; then
	echo "1..0 # SKIP no vDSO to dump here"
	exit 0
fi

# Nothing but the expected files in a directory: no temporary left behind.
only() {
	dir=$1
	shift
	want=
	for f in "$@"; do want="$want$f "; done
	[ "$(cd "$dir" && ls -A | tr '\n' ' ')" = "$want" ]
}

# --- a file-size limit: EFBIG, exit 2, no temporary --------------------
if have prlimit; then
	mkdir "$tmp/lim"
	prlimit --fsize=1000 "$vdsokit" dump -o "$tmp/lim/v.so" >"$tmp/out" 2>"$tmp/err"
	status=$?
	expect_error "dump -o under a 1000-byte file-size limit" 2 "vdsokit dump: .*v\.so: cannot write: File too large"
	check "... leaves nothing in the directory" only "$tmp/lim"
	prlimit --fsize=1000 "$vdsokit" bench --time 0.2 --functions time --svg "$tmp/lim/c.svg" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 2 ] && grep -q "vdsokit bench: .*c\.svg: cannot write: File too large" "$tmp/err" &&
		[ ! -s "$tmp/out" ] && only "$tmp/lim"; then
		ok "bench --svg under a file-size limit: EFBIG, no table, no temporary"
	else
		not_ok "bench --svg under a file-size limit (exit $status)"
		{ cat "$tmp/err"; ls -A "$tmp/lim"; } | diag
	fi
else
	for i in 1 2 3; do skip "no prlimit"; done
fi

# --- "-" is stdout -----------------------------------------------------
mkdir "$tmp/dash" && cd "$tmp/dash" || exit 1
"$vdsokit" dump -o - >"$tmp/dash.so" 2>"$tmp/err"
if [ $? -eq 0 ] && cmp -s "$tmp/dash.so" "$tmp/ref.so" && only "$tmp/dash"; then
	ok "dump -o - writes the image to stdout, no file named -"
else
	not_ok "dump -o - writes to stdout"
	{ cat "$tmp/err"; ls -A; } | diag
fi
"$vdsokit" compare "$tmp/bench.json" --svg - >"$tmp/dash.svg" 2>"$tmp/err"
if [ $? -eq 0 ] && head -1 "$tmp/dash.svg" | grep -q '^<?xml' && grep -q '</svg>' "$tmp/dash.svg" &&
	! grep -q 'improvement' "$tmp/dash.svg" && only "$tmp/dash"; then
	ok "compare --svg - writes only the chart to stdout, no file named -"
else
	not_ok "compare --svg - writes to stdout"
	{ cat "$tmp/err"; head -3 "$tmp/dash.svg"; ls -A; } | diag
fi
"$vdsokit" bench --time 0.2 --functions time --svg - >"$tmp/dash.svg" 2>"$tmp/err"
if [ $? -eq 0 ] && head -1 "$tmp/dash.svg" | grep -q '^<?xml' && only "$tmp/dash"; then
	ok "bench --svg - writes the chart to stdout"
else
	not_ok "bench --svg - writes to stdout"
	{ cat "$tmp/err"; ls -A; } | diag
fi
cd "$tmp" || exit 1
run bench --json --svg -
expect_error "bench --json --svg -: both on stdout is refused" 2 "both write to stdout"

# --- never the input ---------------------------------------------------
cp "$tmp/bench.json" "$tmp/in.json"
run compare "$tmp/in.json" --svg "$tmp/in.json"
expect_error "compare x.json --svg x.json is refused" 2 "that is the input file"
check "... and x.json is untouched" cmp -s "$tmp/in.json" "$tmp/bench.json"
ln "$tmp/in.json" "$tmp/in-link.json"
run compare "$tmp/in.json" --svg "$tmp/in-link.json"
expect_error "compare --svg a hard link of the input is refused" 2 "that is the input file"
"$vdsokit" compare - --svg "$tmp/in.json" <"$tmp/in.json" >"$tmp/out" 2>"$tmp/err"
status=$?
expect_error "compare - --svg FILE with FILE on stdin is refused" 2 "that is the input file"

# --- a hard link stays a link -------------------------------------------
echo old >"$tmp/h1"
ln "$tmp/h1" "$tmp/h2"
run dump -o "$tmp/h1"
if [ "$status" -eq 0 ] && [ "$(stat -c %h "$tmp/h1")" = 2 ] && cmp -s "$tmp/h2" "$tmp/ref.so"; then
	ok "dump -o a file with two links writes it in place: both names see the image"
else
	not_ok "dump -o a hard-linked file (exit $status, links $(stat -c %h "$tmp/h1"))"
fi
# In place over a longer file: cut to the new length.
head -c 100000 /dev/zero >"$tmp/h3"
ln "$tmp/h3" "$tmp/h4"
run dump -o "$tmp/h3"
check "dump -o in place over a longer file leaves exactly the image" cmp -s "$tmp/h3" "$tmp/ref.so"

# --- the owner, group and mode stay -------------------------------------
if [ "$(id -u)" = 0 ]; then
	echo old >"$tmp/users.so"
	chown 65534:65534 "$tmp/users.so"
	chmod 640 "$tmp/users.so"
	run dump -o "$tmp/users.so"
	got=$(stat -c '%u:%g %a' "$tmp/users.so")
	if [ "$status" -eq 0 ] && [ "$got" = "65534:65534 640" ] && cmp -s "$tmp/users.so" "$tmp/ref.so"; then
		ok "root replacing a user's file keeps its owner, group and mode ($got)"
	else
		not_ok "root replacing a user's file: $got (exit $status)"
	fi
else
	skip "not root: cannot make a file of another user"
fi

# --- a writable file in a directory the user cannot write ----------------
if [ "$(id -u)" = 0 ] && have setpriv; then
	chmod 711 "$tmp"   # nobody must reach the directory
	mkdir "$tmp/ro"
	echo old >"$tmp/ro/f.so"
	chown 65534 "$tmp/ro/f.so"
	chmod 555 "$tmp/ro"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$vdsokit" dump -o "$tmp/ro/f.so" >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 0 ] && cmp -s "$tmp/ro/f.so" "$tmp/ref.so" && only "$tmp/ro" f.so; then
		ok "a writable file in an unwritable directory is written in place"
	else
		not_ok "writable file, unwritable directory (exit $status)"
		cat "$tmp/err" | diag
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups "$vdsokit" dump -o "$tmp/ro/new.so" >"$tmp/out" 2>"$tmp/err"
	status=$?
	expect_error "a new file in an unwritable directory: EACCES" 2 "new\.so: Permission denied"
	chmod 755 "$tmp/ro"
else
	skip "not root or no setpriv"
	skip "not root or no setpriv"
fi

# --- a name as long as the directory allows ------------------------------
long=$(printf '%0255d' 0)
mkdir "$tmp/long"
run dump -o "$tmp/long/$long"
if [ "$status" -eq 0 ] && cmp -s "$tmp/long/$long" "$tmp/ref.so" && only "$tmp/long" "$long"; then
	ok "dump -o a 255-character name"
else
	not_ok "dump -o a 255-character name (exit $status)"
	cat "$tmp/err" | diag
fi

# --- a replaced file is never seen half-written: the rename ---------------
echo old >"$tmp/atomic.so"
ino=$(stat -c %i "$tmp/atomic.so")
run dump -o "$tmp/atomic.so"
if [ "$status" -eq 0 ] && [ "$(stat -c %i "$tmp/atomic.so")" != "$ino" ] && cmp -s "$tmp/atomic.so" "$tmp/ref.so"; then
	ok "a plain file of one link is replaced by a rename (a new inode)"
else
	not_ok "plain file replaced atomically (exit $status)"
fi

done_testing
