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

# --- --image input that is no image: refused at once, exit 2 ----------------
# A FIFO blocked in open() forever; a 1 GiB file was read whole (seconds,
# 1 GB of memory) before it was refused.
if mkfifo "$tmp/fifo" 2>/dev/null; then
	"$vdsokit" info --image "$tmp/fifo" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	( sleep 10; kill "$pid" 2>/dev/null ) &
	watchdog=$!
	wait "$pid"
	status=$?
	kill "$watchdog" 2>/dev/null
	expect_error "info --image a FIFO" 2 "^vdsokit info: $tmp/fifo: not a regular file \\(a FIFO\\)$"
else
	skip "info --image a FIFO: mkfifo failed"
fi
truncate -s 1G "$tmp/sparse"
run info --image "$tmp/sparse"
expect_error "info --image a 1 GiB file" 2 \
	"^vdsokit info: $tmp/sparse: 1073741824 bytes, larger than 64 MiB: not a vDSO image$"

done_testing
