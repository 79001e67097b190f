#!/bin/sh
# SPDX-License-Identifier: MIT
# --image files: one that provides no vDSO function (/bin/ls, libc) is an
# error, not a run that compares the syscall with itself; the file is read
# into memory, so one truncated during the run cannot kill the tool
# (SIGBUS); and every report from an image names it, in text and JSON.
. "$(dirname "$0")/lib.sh"

for cmd in verify info abi doctor; do
	for file in /bin/ls "$vdsokit"; do
		run $cmd --image "$file"
		expect_error "$cmd --image $(basename "$file"): not a vDSO image" 2 \
			"not a vDSO image: it provides none of the vDSO functions"
	done
done

arch=$("$vdsokit" --version | sed -n 's/.*, \([a-z0-9_]*\))$/\1/p')
image=$build/images/$arch/callable.so
if [ ! -f "$image" ]; then
	skip "no synthetic image for $arch at $image (make images)"
	done_testing
	exit
fi

# Truncated under the tool's feet: its copy stays whole.
cp "$image" "$tmp/img.so"
"$vdsokit" verify --time 3 --image "$tmp/img.so" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1
: >"$tmp/img.so"
wait "$pid"
status=$?
if [ "$status" = 0 ] || [ "$status" = 1 ]; then
	ok "verify --image survives the file being truncated during the run (exit $status)"
else
	not_ok "verify --image with the file truncated during the run: exit $status (135: SIGBUS)"
fi

cp "$image" "$tmp/img.so"
run verify --time 0.1 --image "$tmp/img.so"
if head -1 "$tmp/out" | grep -q "image $tmp/img.so"; then
	ok "verify --image names the image in its header"
else
	not_ok "verify --image names the image in its header"
	head -2 "$tmp/out" | diag
fi
run verify --time 0.1 --json --image "$tmp/img.so"
json_check "verify --image --json: config.image names it" "$tmp/out" ".config.image == \"$tmp/img.so\""
run abi --image "$tmp/img.so"
if head -1 "$tmp/out" | grep -q "image $tmp/img.so"; then
	ok "abi --image names the image in its header"
else
	not_ok "abi --image names the image in its header"
	head -2 "$tmp/out" | diag
fi
run abi --json --image "$tmp/img.so"
json_check "abi --image --json: image names it" "$tmp/out" ".image == \"$tmp/img.so\""
run doctor --json --image "$tmp/img.so"
json_check "doctor --image --json: image names it" "$tmp/out" ".image == \"$tmp/img.so\""

# An image whose __vdso_clock_gettime is a data object: no usable
# clock_gettime.  The image lacks it, not the kernel; its calls take the
# syscall, so no "fast path" verdict, and no clocksource "read in user space".
data=$build/images/$arch/data.so
if [ -f "$data" ]; then
	run doctor --json --image "$data"
	if [ "$status" = 1 ]; then
		json_check "doctor --image data.so: the image lacks clock_gettime, a slow finding" "$tmp/out" \
			'any(.findings[]; .id == "symbol-absent" and .severity == "slow" and
			     (.title | test("^the image lacks: clock_gettime")) and
			     (.action | test("newer kernel") | not)) and
			 all(.findings[]; .title | test("read in user space") | not) and
			 (.verdict.fast | not)'
	else
		not_ok "doctor --image data.so: exit $status, want 1 (not the fast path)"
	fi
	run info --image "$data"
	if grep -q "clock_gettime .*the image lacks the symbol" "$tmp/out" &&
	   ! grep -q "this kernel's vDSO lacks" "$tmp/out"; then
		ok "info --image data.so: the image lacks the symbol, not this kernel's vDSO"
	else
		not_ok "info --image data.so: the image lacks the symbol, not this kernel's vDSO"
		grep -i "lacks" "$tmp/out" | diag
	fi
else
	skip "no $data (make images)"
	skip "no $data (make images)"
fi

# The --image path is the user's bytes: on a terminal's text it is escaped,
# never raw (ESC[2J would clear the screen), in every command's text.
esc_name=$tmp/$(printf 'esc\033[2J.so')
cp "$image" "$esc_name"
for cmd in doctor "verify --time 0.1" abi info; do
	# shellcheck disable=SC2086
	"$vdsokit" $cmd --image "$esc_name" >"$tmp/out" 2>&1
	if grep -q "$(printf '\033')" "$tmp/out"; then
		not_ok "$cmd --image with ESC in the path: a raw ESC in its text"
	elif grep -qF 'esc\x1b[2J.so' "$tmp/out"; then
		ok "$cmd --image with ESC in the path: shown as \\x1b"
	else
		not_ok "$cmd --image with ESC in the path: the path is not shown escaped"
		head -3 "$tmp/out" | diag
	fi
done

# abi --image: where the "vDSO" path differs, it is the image's code that
# does, and the warnings name the image, not "the raw vDSO".
"$vdsokit" abi --image "$tmp/img.so" >"$tmp/out" 2>"$tmp/err"
if grep -q "warning: the raw vDSO" "$tmp/err" || grep -q "Where the raw vDSO" "$tmp/out"; then
	not_ok "abi --image: warnings and the title name the image, not the raw vDSO"
	grep -m2 "raw vDSO" "$tmp/err" "$tmp/out" | diag
elif grep -q "warning: the image $tmp/img.so returns" "$tmp/err"; then
	ok "abi --image: warnings and the title name the image, not the raw vDSO"
else
	skip "abi --image: this image differs from the syscall nowhere: no warning to read"
fi

# --- --image input that is no image: refused at once, exit 2 ----------------
# A FIFO blocked in open() forever; a 1 GiB file was read whole (seconds,
# 1 GB of memory) before it was refused.
if mkfifo "$tmp/fifo" 2>/dev/null; then
	run_within 10 info --image "$tmp/fifo"
	expect_error "info --image a FIFO" 2 "^vdsokit info: $tmp/fifo: not a regular file \\(a FIFO\\)$"
else
	skip "info --image a FIFO: mkfifo failed"
fi
truncate -s 1G "$tmp/sparse"
run info --image "$tmp/sparse"
expect_error "info --image a 1 GiB file" 2 \
	"^vdsokit info: $tmp/sparse: 1073741824 bytes, larger than 64 MiB: not a vDSO image$"

done_testing
