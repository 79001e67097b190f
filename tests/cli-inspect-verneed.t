#!/bin/sh
# SPDX-License-Identifier: MIT
# inspect of a shared object that needs other libraries: every undefined
# symbol with the version it needs (DT_VERNEED), as readelf --dyn-syms shows
# it (free@GLIBC_2.2.5), and the version needs as readelf -V lists them.
# Compared on the host's own libraries, built by other toolchains.
. "$(dirname "$0")/lib.sh"

if ! have readelf || ! have jq; then
	echo "1..0 # SKIP readelf (binutils) or jq not installed"
	exit 0
fi

# num and name (name@@VER, name@VER), readelf's " (5)" after a needed version dropped.
readelf_names() {
	readelf --dyn-syms -W "$1" | awk '
		$1 ~ /^[0-9]+:$/ {
			line = $0; gsub(/\[[^]]*\]/, "", line); sub(/ \([0-9]+\)$/, "", line)
			n = split(line, f, " ")
			print substr(f[1], 1, length(f[1]) - 1), (f[4] == "SECTION" || n < 8) ? "" : f[8]
		}' | sed 's/ $//'
}

# "index name file" of each version need.
readelf_needs() {
	readelf -V -W "$1" | awk '
		/^Version needs section/ { on = 1; next }
		/^Version (definition|symbols) section/ { on = 0 }
		on && /File: / { file = $0; sub(/.*File: /, "", file); sub(/ .*/, "", file) }
		on && /Name: / {
			name = $0; sub(/.*Name: /, "", name); sub(/ .*/, "", name)
			ver = $0; sub(/.*Version: /, "", ver); sub(/ .*/, "", ver)
			print ver, name, file
		}' | sort -n
}

libs=0
for lib in libacl.so.1 libz.so.1 libgcc_s.so.1 libcrypt.so.1 libm.so.6 libstdc++.so.6; do
	f=$(for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib; do
		[ -f "$d/$lib" ] && echo "$d/$lib" && break; done)
	[ -n "$f" ] || continue
	readelf -V -W "$f" | grep -q '^Version needs section' || continue
	libs=$((libs + 1))
	run inspect "$f" --json
	if [ "$status" -ne 0 ]; then
		not_ok "$lib: inspect --json (exit $status)"
		head -3 "$tmp/err" | diag
		continue
	fi
	cp "$tmp/out" "$tmp/lib.json"
	readelf_names "$f" >"$tmp/readelf.names"
	jq -r '.symbols[] | "\(.index) \(if .type == "SECTION" then "" else .versioned_name end)"' \
		"$tmp/lib.json" | sed 's/ $//' >"$tmp/vdsokit.names"
	if [ -s "$tmp/readelf.names" ] && diff -u "$tmp/readelf.names" "$tmp/vdsokit.names" >"$tmp/diff"; then
		ok "$lib: $(wc -l <"$tmp/readelf.names") dynamic symbols with their versions, as readelf --dyn-syms"
	else
		not_ok "$lib: dynamic symbols with their versions, as readelf --dyn-syms"
		head -20 "$tmp/diff" | diag
	fi
	readelf_needs "$f" >"$tmp/readelf.needs"
	jq -r '.version_needs[] | "\(.index) \(.name) \(.file)"' "$tmp/lib.json" | sort -n >"$tmp/vdsokit.needs"
	if [ -s "$tmp/readelf.needs" ] && diff -u "$tmp/readelf.needs" "$tmp/vdsokit.needs" >"$tmp/diff"; then
		ok "$lib: $(wc -l <"$tmp/readelf.needs") version needs, as readelf -V"
	else
		not_ok "$lib: version needs, as readelf -V"
		head -20 "$tmp/diff" | diag
	fi
	run inspect "$f"
	first_und=$(awk 'NR > 1 && $2 ~ /@/ { print $2; exit }' "$tmp/readelf.names")
	check "$lib: text shows $first_und and a version-needs table" sh -c \
		"grep -Eq ' UND +$first_und\$' '$tmp/out' && grep -q '^version needs (' '$tmp/out'"
done
[ "$libs" -gt 0 ] || skip "no system library with DT_VERNEED found"

# A version-needs table that points outside the file: said, never read past.
f=/lib/x86_64-linux-gnu/libacl.so.1
off=$(readelf -SW "$f" 2>/dev/null | awk '$2 == ".gnu.version_r" { print $5 } $3 == ".gnu.version_r" { print $6 }' | head -1)
if [ -n "$off" ] && have python3; then
	cp "$f" "$tmp/bad.so"
	# vn_aux of the first entry (offset 8): far past the end of the file.
	python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2], 16) + 8); f.write(b"\xf0\xff\xff\x7f")' \
		"$tmp/bad.so" "$off"
	run inspect "$tmp/bad.so"
	check "a broken DT_VERNEED: inspect says the versions are not shown" sh -c \
		"[ $status -eq 0 ] && grep -q 'DT_VERNEED malformed: versions of undefined symbols not shown' '$tmp/out'"
	run inspect "$tmp/bad.so" --json
	json_check "a broken DT_VERNEED: JSON version_needs null, with the reason" "$tmp/out" \
		'.version_needs == null and (.version_needs_error | test("malformed"))'
else
	skip "a broken DT_VERNEED: no libacl.so.1 with .gnu.version_r, or no python3"
	skip "a broken DT_VERNEED (JSON)"
fi

# A vDSO needs nothing: no table, an empty list in JSON.
run dump -o "$tmp/vdso.so"
if [ "$status" -eq 0 ]; then
	run inspect "$tmp/vdso.so" --json
	json_check "the vDSO: version_needs is an empty list" "$tmp/out" '.version_needs == []'
else
	skip "no vDSO to dump"
fi
done_testing
