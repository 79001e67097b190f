#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit info, dump and inspect: the inventory agrees with readelf (binutils,
# an independent implementation) on the host's own vDSO as dumped, on every
# synthetic image of tests/images and on the real kernel images of
# tests/qemu/images; bad input gives exit 2 and a message naming the file.
. "$(dirname "$0")/lib.sh"

# readelf's dynamic symbols as "num value size type bind vis ndx name":
# values without leading zeros, bracketed extras ([<localentry>: 8],
# [MIPS16]) dropped, section symbols without a name (readelf prints the
# section's).
readelf_symbols() {
	readelf --dyn-syms -W "$1" 2>/dev/null | awk '
		$1 ~ /^[0-9]+:$/ {
			line = $0; gsub(/\[[^]]*\]/, "", line)
			n = split(line, f, " ")
			v = f[2]; sub(/^0+/, "", v); if (v == "") v = "0"
			name = (f[4] == "SECTION" || n < 8) ? "" : f[8]
			print substr(f[1], 1, length(f[1]) - 1), v, f[3], f[4], f[5], f[6], f[7], name
		}' | sed 's/ $//'
}

vdsokit_symbols() {
	jq -r '.symbols[] | [.index, (.value | sub("^0x"; "")), .size, .type, .bind,
	       .visibility, .ndx, (if .type == "SECTION" then "" else .versioned_name end)]
	       | map(tostring) | join(" ")' "$1" | sed 's/ $//'
}

readelf_verdefs() {
	readelf -V -W "$1" 2>/dev/null | awk '
		/^Version definition section/ { on = 1; next }
		/^Version (needs|symbols) section/ { on = 0 }
		on && / Rev: / {
			line = $0; gsub(/ \| /, "|", line)
			flags = line; sub(/.*Flags: /, "", flags); sub(/  *Index:.*/, "", flags)
			idx = line; sub(/.*Index: /, "", idx); sub(/ .*/, "", idx)
			cnt = line; sub(/.*Cnt: /, "", cnt); sub(/ .*/, "", cnt)
			name = line; sub(/.*Name: /, "", name)
			print "verdef", idx, flags, cnt, name; last = idx
		}
		on && /Parent 1: / { p = $0; sub(/.*Parent 1: /, "", p); print "parent", last, p }'
}

vdsokit_verdefs() {
	jq -r '.version_definitions[] | "verdef \(.index) \(.flag_names) \(.aux_count) \(.name)",
	       (select(.parent != null) | "parent \(.index) \(.parent)")' "$1"
}

# compare_with_readelf LABEL FILE: symbols and version definitions.
compare_with_readelf() {
	label=$1
	file=$2
	# ld writes DT_MIPS_XHASH instead of DT_GNU_HASH on mips: with no hash
	# table the parser knows, the image must be refused, not guessed at.
	if ! readelf -d -W "$file" 2>/dev/null | grep -Eq '\((GNU_)?HASH\)'; then
		run inspect "$file"
		expect_error "$label: no DT_HASH/DT_GNU_HASH: refused" 2 \
			"^vdsokit inspect: $file: neither DT_HASH nor DT_GNU_HASH"
		return
	fi
	if ! "$vdsokit" inspect --json "$file" >"$tmp/i.json" 2>"$tmp/i.err"; then
		not_ok "$label: inspect --json (exit $?)"
		diag <"$tmp/i.err"
		return
	fi
	readelf_symbols "$file" >"$tmp/want.sym"
	vdsokit_symbols "$tmp/i.json" >"$tmp/got.sym"
	if [ -s "$tmp/want.sym" ] && diff -u "$tmp/want.sym" "$tmp/got.sym" >"$tmp/d"; then
		ok "$label: $(wc -l <"$tmp/got.sym") dynamic symbols as readelf --dyn-syms"
	else
		not_ok "$label: dynamic symbols differ from readelf --dyn-syms"
		head -30 "$tmp/d" | diag
	fi
	readelf_verdefs "$file" >"$tmp/want.ver"
	vdsokit_verdefs "$tmp/i.json" >"$tmp/got.ver"
	if diff -u "$tmp/want.ver" "$tmp/got.ver" >"$tmp/d"; then
		ok "$label: $(grep -c ^verdef "$tmp/got.ver") version definitions as readelf -V"
	else
		not_ok "$label: version definitions differ from readelf -V"
		head -30 "$tmp/d" | diag
	fi
}

if ! have readelf || ! have jq; then
	echo "1..0 # SKIP needs readelf and jq"
	exit 0
fi

# --- info -----------------------------------------------------------------
run info
expect_status "info" 0
check "info shows the [vdso] mapping" grep -Eq '^  \[vdso\] +0x' "$tmp/out"
check "info lists dynamic symbols" grep -q '^dynamic symbols (' "$tmp/out"
check "info maps each library function" grep -Eq '^  clock_gettime +(vdso|syscall)' "$tmp/out"

run info --json
expect_status "info --json" 0
cp "$tmp/out" "$tmp/info.json"
json_check "info --json: schema vdsokit-info, version 1" "$tmp/info.json" \
	'.schema == "vdsokit-info" and .schema_version == 1 and .tool.name == "vdsokit"'
json_check "info --json: 7 library functions" "$tmp/info.json" '.functions | length == 7'

# --- dump -------------------------------------------------------------------
run dump -o "$tmp/vdso.so"
expect_status "dump -o FILE" 0
if readelf -h -l --dyn-syms -V -W "$tmp/vdso.so" >"$tmp/readelf.out" 2>"$tmp/readelf.err" &&
   ! grep -Eq 'Error|Warning' "$tmp/readelf.err"; then
	ok "readelf accepts the dump ($(wc -c <"$tmp/vdso.so") bytes) without a warning"
else
	not_ok "readelf complains about the dump"
	head -5 "$tmp/readelf.err" | diag
fi
"$vdsokit" dump >"$tmp/stdout.so" 2>"$tmp/err"
if cmp -s "$tmp/vdso.so" "$tmp/stdout.so"; then
	ok "dump to stdout writes the same bytes as -o"
else
	not_ok "dump to stdout differs from dump -o"
fi
json_check "info and the dump agree on the symbol count" "$tmp/info.json" \
	".image.symbols | length == $(readelf_symbols "$tmp/vdso.so" | wc -l)"
json_check "the image starts at the [vdso] mapping" "$tmp/info.json" \
	'.image.start as $s | [.mappings[] | select(.name == "[vdso]") | .start] | index($s) != null'
run dump -o /nonexistent-dir/vdso.so
expect_error "dump -o into a missing directory" 2 "^vdsokit dump: /nonexistent-dir/vdso.so: No such file or directory"
run dump -o "$tmp/a" extra
expect_error "dump with an operand" 2 "unexpected argument 'extra'"

# --- inspect on the dump: text and JSON --------------------------------------
run inspect "$tmp/vdso.so"
expect_status "inspect the dump" 0
machine=$(uname -m)
check "inspect names the host's machine" grep -q "$machine" "$tmp/out"
compare_with_readelf "host vDSO (dump)" "$tmp/vdso.so"
run inspect --json - <"$tmp/vdso.so"
expect_status "inspect - (stdin)" 0

# --- every synthetic image, every real kernel image -------------------------
set -- "$build"/images/*/*.so
if [ -e "$1" ]; then
	for f in "$@"; do
		arch=$(basename "$(dirname "$f")")
		compare_with_readelf "synthetic $arch/$(basename "$f")" "$f"
	done
else
	skip "no synthetic images in $build/images (make images)"
fi
for f in "$top"/tests/qemu/images/*.so; do
	[ -e "$f" ] || { skip "no tests/qemu/images"; break; }
	compare_with_readelf "real kernel image $(basename "$f")" "$f"
done

# Foreign architectures are inputs like any other: exit 0, the right machine.
foreign_check() {   # FILE MACHINE CLASS BYTE_ORDER
	if [ ! -e "$1" ]; then
		skip "no $1"
		return
	fi
	run inspect --json "$1"
	cp "$tmp/out" "$tmp/f.json"
	json_check "foreign image $(basename "$1"): exit 0, $2, ELF$3, $4-endian" "$tmp/f.json" \
		".elf.machine_name == \"$2\" and .elf.class == $3 and .elf.byte_order == \"$4\""
}
foreign_check "$top/tests/qemu/images/s390x.so" s390x 64 big
foreign_check "$top/tests/qemu/images/armhf.so" arm 32 little
foreign_check "$build/images/m68k/both.so" m68k 32 big

# Linux 7.2's robust-futex unlock helpers, which the library never calls,
# are listed by name: the 64-bit-list one of x86_64's vDSO, the 32-bit one
# of the i386 image with 7.3's set; info --image lists the first too.
robust_check() { # IMAGE NAME
	if [ ! -f "$1" ]; then
		skip "$2 listed by name: no image $1 (make images)"
		return
	fi
	"$vdsokit" inspect "$1" >"$tmp/robust.txt" 2>&1
	if grep -Eq "FUNC +GLOBAL +DEFAULT +[0-9]+ +$2@@LINUX_2\.6\$" "$tmp/robust.txt"; then
		ok "inspect $(basename "$(dirname "$1")")/$(basename "$1") lists $2 by name"
	else
		not_ok "inspect $(basename "$(dirname "$1")")/$(basename "$1") lists $2 by name"
	fi
}
robust_check "$build/images/x86_64/v72.so" __vdso_futex_robust_list64_try_unlock
robust_check "$build/images/i386/v73y2038.so" __vdso_futex_robust_list32_try_unlock
if [ "$(uname -m)" = x86_64 ] && [ -f "$build/images/x86_64/v72.so" ]; then
	"$vdsokit" info --image "$build/images/x86_64/v72.so" >"$tmp/robust.txt" 2>&1
	if grep -q ' __vdso_futex_robust_list64_try_unlock@@LINUX_2\.6$' "$tmp/robust.txt"; then
		ok "info --image lists __vdso_futex_robust_list64_try_unlock by name"
	else
		not_ok "info --image lists __vdso_futex_robust_list64_try_unlock by name"
	fi
fi

# --- bad input: exit 2, file and reason on stderr, nothing on stdout -------
run inspect "$tmp/does-not-exist.so"
expect_error "inspect a missing file" 2 "^vdsokit inspect: $tmp/does-not-exist.so: No such file or directory$"
run inspect "$tmp"
expect_error "inspect a directory" 2 "^vdsokit inspect: $tmp: not a regular file \\(a directory\\)$"
# A FIFO with no writer: refused at once, not waited on in open() forever.
if mkfifo "$tmp/fifo" 2>/dev/null; then
	run_within 10 inspect "$tmp/fifo"
	expect_error "inspect a FIFO" 2 "^vdsokit inspect: $tmp/fifo: not a regular file \\(a FIFO\\)$"
else
	skip "inspect a FIFO: mkfifo failed"
fi
# A file past the limit is refused from its size, not read first.
truncate -s 300M "$tmp/huge"
run inspect "$tmp/huge"
expect_error "inspect a 300 MiB file" 2 "^vdsokit inspect: $tmp/huge: 314572800 bytes, larger than 256 MiB: not a vDSO image$"
printf 'hello, not an ELF file\n' >"$tmp/text"
run inspect "$tmp/text"
expect_error "inspect a text file" 2 "^vdsokit inspect: $tmp/text: not an ELF file"
: >"$tmp/empty"
run inspect "$tmp/empty"
expect_error "inspect an empty file" 2 "^vdsokit inspect: $tmp/empty: not an ELF file \\(empty\\)"
# Too short for a header is "truncated" only when what is there starts as ELF.
printf 'abc' >"$tmp/three"
run inspect "$tmp/three"
expect_error "inspect a 3-byte text file: not an ELF file" 2 "^vdsokit inspect: $tmp/three: not an ELF file"
printf '\177EL' >"$tmp/three-elf"
run inspect "$tmp/three-elf"
expect_error "inspect the first 3 bytes of an ELF file: truncated" 2 "^vdsokit inspect: $tmp/three-elf: truncated ELF"
head -c 40 "$tmp/vdso.so" >"$tmp/short"
run inspect "$tmp/short"
expect_error "inspect an ELF header cut at 40 bytes" 2 "^vdsokit inspect: $tmp/short: truncated ELF .*the file has 40 bytes"
head -c 700 "$tmp/vdso.so" >"$tmp/cut"
run inspect "$tmp/cut"
expect_error "inspect an image cut at 700 bytes" 2 "^vdsokit inspect: $tmp/cut: .*(truncated|outside)"
cp "$tmp/vdso.so" "$tmp/badclass"
printf '\007' | dd of="$tmp/badclass" bs=1 seek=4 conv=notrunc 2>/dev/null
run inspect "$tmp/badclass"
expect_error "inspect an image with EI_CLASS 7" 2 "^vdsokit inspect: $tmp/badclass: unknown ELF class"
cp "$tmp/vdso.so" "$tmp/exec"
printf '\002' | dd of="$tmp/exec" bs=1 seek=16 conv=notrunc 2>/dev/null
run inspect "$tmp/exec"
expect_error "inspect an ET_EXEC file" 2 "^vdsokit inspect: $tmp/exec: not a shared object"
run inspect "$tmp/vdso.so" "$tmp/vdso.so"
expect_error "inspect two files" 2 "one FILE at a time"
run inspect
expect_error "inspect without a file" 2 "no FILE given"

done_testing
