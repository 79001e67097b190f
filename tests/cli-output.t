#!/bin/sh
# SPDX-License-Identifier: MIT
# What vdsokit writes, and where: files it writes never destroy what it did
# not create (dump -o, --svg given a device node, a symlink, a FIFO or a
# file that is already there), and output that is lost (stdout on a full
# device, closed, or a pipe nobody reads) never exits 0.
. "$(dirname "$0")/lib.sh"

# One small bench file, enough for compare and its chart.
cp "$top/tests/data/bench-small.json" "$tmp/bench.json"

# --- 1: dump -o and --svg never remove what they did not create ---------

# A copy of /dev/full: every write fails with ENOSPC.
if mknod "$tmp/full" c 1 7 2>/dev/null; then
	run dump -o "$tmp/full"
	expect_error "dump -o a full device: the write error" 2 "$tmp/full: .*No space left on device"
	check "dump -o a full device: the device node is still there" test -c "$tmp/full"
	run compare "$tmp/bench.json" --svg "$tmp/full"
	check "compare --svg a full device: the write error, not 'no figures'" \
		sh -c "[ $status -eq 2 ] && grep -q 'No space left on device' '$tmp/err' && ! grep -q 'no figures' '$tmp/err'"
	check "compare --svg a full device: the device node is still there" test -c "$tmp/full"
	ln -s "$tmp/full" "$tmp/link-to-full"
	run dump -o "$tmp/link-to-full"
	expect_error "dump -o a symlink to a full device: the write error" 2 "No space left on device"
	check "dump -o a symlink: the link is still there" test -L "$tmp/link-to-full"
	check "... and its target" test -c "$tmp/full"
else
	for i in 1 2 3 4 5 6 7; do skip "mknod not permitted (not root)"; done
fi

# A symlink to a regular file: the target gets the image, the link stays a link.
echo old >"$tmp/target.so"
ln -s "$tmp/target.so" "$tmp/link.so"
run dump -o "$tmp/link.so"
expect_status "dump -o a symlink to a file" 0
check "the link is still a link" test -L "$tmp/link.so"
check "its target holds the image" sh -c "head -c 4 '$tmp/target.so' | grep -q ELF"

# An existing file keeps its mode; a failed write leaves it as it was.
echo precious >"$tmp/keep.so"
chmod 600 "$tmp/keep.so"
run dump -o "$tmp/keep.so"
expect_status "dump -o over an existing file" 0
check "the file keeps its mode (600)" sh -c "[ \$(stat -c %a '$tmp/keep.so') = 600 ]"
check "no temporary file left beside it" sh -c "[ \$(ls '$tmp' | grep -c 'keep.so.tmp') -eq 0 ]"
echo precious >"$tmp/keep2.so"
# SIGXFSZ ignored: the write fails with EFBIG instead of killing the process.
(trap '' XFSZ; ulimit -f 1; "$vdsokit" dump -o "$tmp/keep2.so") >"$tmp/out" 2>"$tmp/err"
status=$?
check "a write that fails (ulimit -f 1) exits non-zero" test "$status" -ne 0
check "... and leaves the old file as it was" grep -qx precious "$tmp/keep2.so"
check "... and no temporary file" sh -c "[ \$(ls '$tmp' | grep -c 'keep2.so.tmp') -eq 0 ]"

# A file we may not write, in a directory we may: refused, as open() would
# (a rename would have replaced it).
if [ "$(id -u)" = 0 ] && have setpriv; then
	mkdir "$tmp/shared" && chmod 777 "$tmp/shared" && chmod 755 "$tmp"
	echo keep >"$tmp/shared/theirs.so" && chmod 644 "$tmp/shared/theirs.so"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$vdsokit" dump -o "$tmp/shared/theirs.so" \
		>"$tmp/out" 2>"$tmp/err"
	status=$?
	expect_error "dump -o a file this user may not write" 2 "theirs.so: Permission denied"
	check "... which is left as it was" grep -qx keep "$tmp/shared/theirs.so"
else
	skip "not root, or no setpriv: cannot act as another user"
	skip "not root, or no setpriv"
fi

# A FIFO: written directly (a reader gets the image), never removed.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
run dump -o "$tmp/fifo"
wait "$reader"
expect_status "dump -o a FIFO" 0
check "the FIFO is still a FIFO" test -p "$tmp/fifo"
check "the reader got the image" sh -c "head -c 4 '$tmp/from-fifo' | grep -q ELF"

# A directory is refused, by name.
mkdir "$tmp/dir"
run dump -o "$tmp/dir"
expect_error "dump -o a directory" 2 "$tmp/dir: [Ii]s a directory"

# --- 4: lost output never exits 0 -----------------------------------------

# lost_output DESCRIPTION ARGS...: stdout on /dev/full, closed, and a pipe
# whose reader is gone with SIGPIPE ignored; each must exit non-zero with a
# message on stderr.
lost_output() {
	what=$1
	shift
	"$vdsokit" "$@" >/dev/full 2>"$tmp/err"
	s=$?
	if [ $s -ne 0 ] && grep -q 'error writing' "$tmp/err"; then
		ok "$what, stdout on /dev/full: exit $s, $(head -1 "$tmp/err")"
	else
		not_ok "$what, stdout on /dev/full: exit $s"
		diag <"$tmp/err"
	fi
	"$vdsokit" "$@" >&- 2>"$tmp/err"
	s=$?
	if [ $s -ne 0 ] && grep -q 'error writing' "$tmp/err"; then
		ok "$what, stdout closed: exit $s"
	else
		not_ok "$what, stdout closed: exit $s"
		diag <"$tmp/err"
	fi
	python3 - "$vdsokit" "$@" >"$tmp/pipe.out" 2>&1 <<'PY'
import os, signal, subprocess, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN)   # inherited across exec
r, w = os.pipe()
os.close(r)                                      # nobody will ever read
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, restore_signals=False)
print(p.returncode, p.stderr.decode(errors="replace").strip())
sys.exit(0 if p.returncode != 0 and b"error writing" in p.stderr else 1)
PY
	if [ $? -eq 0 ]; then
		ok "$what, closed pipe, SIGPIPE ignored: $(cat "$tmp/pipe.out")"
	else
		not_ok "$what, closed pipe, SIGPIPE ignored: $(cat "$tmp/pipe.out")"
	fi
}
lost_output "--help" --help
lost_output "--version" --version
lost_output "help" help
lost_output "help bench" help bench
lost_output "report (no command)"
lost_output "dump to stdout" dump

# --- 8: smaller -------------------------------------------------------------

# A file of exactly 64 MiB is within the limit; one byte more is not.
python3 - "$tmp/bench.json" "$tmp/64m.json" 67108864 <<'PY'
import sys
text = open(sys.argv[1]).read().rstrip("\n")
size = int(sys.argv[3])
open(sys.argv[2], "w").write(text + " " * (size - len(text)))
PY
run compare "$tmp/64m.json"
check "compare: a file of exactly 64 MiB is read (exit $status)" test "$status" -eq 0
printf ' ' >>"$tmp/64m.json"
run compare "$tmp/64m.json"
expect_error "compare: 64 MiB + 1 byte is refused" 2 "larger than 64 MiB"
rm -f "$tmp/64m.json"

# A median of 1e300 prints as such, not cut to 31 characters.
sed 's/"median_ns": 120/"median_ns": 1e300/' "$tmp/bench.json" >"$tmp/huge.json"
run compare "$tmp/huge.json"
check "compare: a median of 1e300 reads as 1e+300" grep -Eq '^time +1e\+300 +4\.50 ' "$tmp/out"

# inspect - with stdin closed says so.
"$vdsokit" inspect - <&- >"$tmp/out" 2>"$tmp/err"
status=$?
expect_error "inspect - with stdin closed" 2 "^vdsokit inspect: -: stdin is closed$"

done_testing
