#!/bin/sh
# SPDX-License-Identifier: MIT
# verify/abi --image run a file's code: a file that cannot run from a file
# (a dump of the live vDSO, whose code reads the kernel's data pages; a
# truncated dump) is refused with the reason and exit 2, never a crash and
# never "agrees with the syscall"; inspect warns about a truncated file.
. "$(dirname "$0")/lib.sh"

"$vdsokit" dump -o "$tmp/v.so" 2>"$tmp/dump.err"
if [ ! -s "$tmp/v.so" ]; then
	echo "1..0 # SKIP no vDSO to dump here: $(head -1 "$tmp/dump.err")"
	exit 0
fi
head -c 2000 "$tmp/v.so" >"$tmp/cut.so"

# --- a copy of the live vDSO: its code reads data pages the file lacks ---
run verify --time 0.1 --image "$tmp/v.so"
expect_error "verify --image of a dump of the live vDSO is refused" 2 \
	"vdsokit verify: .*v\.so: cannot run it: calling its [a-z_]+ ended in SIG[A-Z]+.*data pages"
grep -q "this process's own vDSO" "$tmp/err" &&
	ok "the refusal says the file is this process's own vDSO" ||
	not_ok "the refusal says the file is this process's own vDSO: $(cat "$tmp/err")"
run abi --json --image "$tmp/v.so"
expect_error "abi --json --image of a dump is refused, no JSON" 2 \
	"vdsokit abi: .*cannot run it: calling its"

# --- a truncated dump: no function code at all ---
run verify --time 0.1 --image "$tmp/cut.so"
expect_error "verify --image of a truncated dump is refused" 2 \
	"cannot run it: the file has 2000 bytes but its PT_LOAD segments span [0-9]+"
run abi --image "$tmp/cut.so"
expect_error "abi --image of a truncated dump is refused" 2 "the file has 2000 bytes"

# --- inspect reads a truncated file, and says what is missing ---
run inspect "$tmp/cut.so"
# readelf's view of the same span: offset + filesz of the last PT_LOAD.
span=
for load in $(readelf -lW "$tmp/v.so" 2>/dev/null | awk '$1 == "LOAD" { print $2 "+" $5 }'); do
	span=$(($load))
done
if [ "$status" -eq 0 ] && grep -q "warning: .*the file is 2000 bytes while its PT_LOAD segments span ${span:-[0-9]}" "$tmp/err" &&
	grep -q "^warning: .*2000 bytes while its PT_LOAD segments span" "$tmp/out"; then
	ok "inspect of a truncated file exits 0 and warns on stderr and in the text (span $span)"
else
	not_ok "inspect of a truncated file warns (exit $status)"
	{ cat "$tmp/err"; head -3 "$tmp/out"; } | diag
fi
run inspect --json "$tmp/cut.so"
json_check "inspect --json of a truncated file: load_span and a warning" "$tmp/out" \
	'.file_size == 2000 and .load_span > 2000 and (.warnings | length) == 1 and (.warnings[0] | test("2000 bytes"))'
run inspect --json "$tmp/v.so"
json_check "inspect --json of a whole dump: no warning" "$tmp/out" \
	'.load_span <= .file_size and .warnings == []'

# --- an image whose code needs only itself still runs ---
arch=$("$vdsokit" --version | sed -n 's/.*, \([a-z0-9_]*\))$/\1/p')
image=$build/images/$arch/callable.so
if [ -f "$image" ]; then
	run verify --time 0.1 --image "$image"
	expect_status "verify --image of a synthetic image runs it (and finds it wrong)" 1
else
	skip "no synthetic image for $arch at $image (make images)"
fi

done_testing
