#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's image parser against readelf, on every synthetic vDSO image
# (tests/images/build-images; `make images` builds them, `make check` first).
#
# For each image: libvdsokit (through tests/tools/imgdump) must see the same
# class, byte order, machine, hash tables, build-id, dynamic symbols (name,
# version, value, size, type, bind, visibility, section index) and version
# definitions as `readelf` (binutils, an independent implementation), and
# vdsokit_image_lookup(name, version) must find exactly the symbols readelf
# shows as defined global/weak functions in that version.  Callable images
# must also be flat (p_offset == p_vaddr) and free of relocations, since
# tests/callpath.c maps them as they are.
. "$(dirname "$0")/lib.sh"
images=$build/images
imgdump=$build/tests/tools/imgdump
# check DESCRIPTION FILE_A FILE_B: ok when equal, else the diff as comments.
check_same() {
	if diff -u "$2" "$3" >"$tmp/diff"; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' "$tmp/diff" | head -40
	fi
}

if ! command -v readelf >/dev/null 2>&1; then
	echo "1..0 # SKIP readelf not installed"
	exit 0
fi
if [ ! -x "$imgdump" ] || [ ! -f "$images/.built" ]; then
	echo "1..0 # SKIP $imgdump or $images missing: run make images $imgdump (make check does)"
	exit 0
fi

# The tool's own ELF hash against glibc's published VDSO_HASH values
# (REFERENCE.md), so that "hash-ok" below means something.
"$imgdump" --elf-hash LINUX_2.6 LINUX_2.6.15 LINUX_2.6.29 LINUX_2.6.39 LINUX_4.15 LINUX_5.10 >"$tmp/hash"
cat >"$tmp/hash.want" <<'HASHES'
LINUX_2.6 61765110
LINUX_2.6.15 123718565
LINUX_2.6.29 123718585
LINUX_2.6.39 123718537
LINUX_4.15 182943605
LINUX_5.10 182947696
HASHES
check_same "imgdump's ELF hash gives glibc's VDSO_HASH values" "$tmp/hash.want" "$tmp/hash"

# readelf's view, in imgdump's line format ------------------------------

readelf_header() {
	f=$1
	class=$(readelf -h "$f" | awk -F: '/^ *Class:/ { gsub(/ /, "", $2); print $2 }')
	endian=$(readelf -h "$f" | awk -F: '/^ *Data:/ { print ($2 ~ /big/) ? "big" : "little" }')
	# e_machine (2 bytes at offset 18) straight from the file: readelf
	# prints only a name for it.
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(od -An -j18 -N2 -tu1 "$f")
	if [ "$endian" = big ]; then machine=$(($1 * 256 + $2)); else machine=$(($2 * 256 + $1)); fi
	# Entry size of .hash (8 on s390x and alpha), when there is one.
	es=$(readelf -SW "$f" | awk '{ for (i = 1; i <= NF; i++) if ($i == ".hash") { print $(i + 5) + 0; exit } }')
	flags=$(readelf -dW "$f" | awk '
		/\(HASH\)/ { h = 1 } /\(GNU_HASH\)/ { g = 1 } /\(VERSYM\)/ { s = 1 } /\(VERDEF\)/ { d = 1 }
		END { out = ""
		      if (h) out = out ",HASH"; if (g) out = out ",GNU_HASH"
		      if (s) out = out ",VERSYM"; if (d) out = out ",VERDEF"
		      print (out == "") ? "-" : substr(out, 2) }')
	id=$(readelf -n "$f" | awk '/Build ID:/ { print $3 }')
	echo "$class $endian $machine ${es:-?} $flags ${id:--}"
}

# imgdump prints hash_entry_size always; readelf has an ES only with .hash.
imgdump_header() {
	awk -v es_known="$2" '$1 == "header" { if (!es_known) $5 = "?"; print $2, $3, $4, $5, $6, $7 }' "$1"
}

readelf_symbols() {
	readelf --dyn-syms -W "$1" | awk '
		$1 ~ /^[0-9]+:$/ {
			num = $1; sub(/:/, "", num)
			# ppc64 ELFv2 adds "[<localentry>: N]" after the visibility.
			line = $0; gsub(/\[[^]]*\]/, "", line)
			split(line, f, " ")
			size = f[3]; if (size ~ /^0x/) size = sprintf("%d", size)
			# For a section symbol readelf prints the name of the section,
			# not the (empty) string at st_name.
			name = (f[4] == "SECTION") ? "" : f[8]
			print "sym", num, f[2], size, f[4], f[5], f[6], f[7], name
		}'
}

# readelf leaves out the version of the symbol that names the version
# itself (LINUX_2.6@@LINUX_2.6, an ABS object): so do we.
imgdump_symbols() {
	awk '$1 == "sym" {
		name = $9; at = index(name, "@@")
		if (at && substr(name, 1, at - 1) == substr(name, at + 2)) name = substr(name, 1, at - 1)
		print $1, $2, $3, $4, $5, $6, $7, $8, name
	}' "$1"
}

readelf_verdefs() {
	readelf -V -W "$1" | awk '
		/^Version definition section/ { on = 1; next }
		/^Version (needs|symbols) section/ { on = 0 }
		on && / Rev: / {
			line = $0; sub(/.*Flags: /, "", line); flags = line; sub(/  *Index:.*/, "", flags)
			gsub(/ \| /, "|", flags)
			idx = line; sub(/.*Index: /, "", idx); sub(/ .*/, "", idx)
			cnt = line; sub(/.*Cnt: /, "", cnt); sub(/ .*/, "", cnt)
			name = line; sub(/.*Name: /, "", name)
			print "verdef", idx, flags, cnt, name, "hash-ok"; last = idx
		}
		on && /Parent [0-9]+:/ { name = $0; sub(/.*: /, "", name); print "parent", last, name }'
}

imgdump_verdefs() {
	awk '$1 == "verdef" || $1 == "parent"' "$1"
}

# Lookup queries and what readelf says their answers must be.
# $1 readelf symbols, $2 the arch's correct node, $3 names of the arch's
# functions (from its "both" image), $4 "versioned" or "unversioned".
lookup_expectations() {
	awk -v node="$2" -v mode="$4" -v allnames="$3" '
		function want(name, ver, found, value) {
			print name, ver, (found ? "found " value : "absent")
		}
		{
			name = $9; ver = "-"
			at = index(name, "@")
			if (at) { ver = substr(name, at); sub(/^@+/, "", ver); name = substr(name, 1, at - 1) }
			if (name == "") next
			defined_fn = ($5 == "FUNC" || $5 == "NOTYPE") && ($6 == "GLOBAL" || $6 == "WEAK") && $8 != "UND"
			if (defined_fn) {
				seen[name] = 1
				if (mode == "versioned") {
					want(name, ver, 1, $3)
					want(name, "-", 1, $3)               # any version
					if (ver != "LINUX_1.0") want(name, "LINUX_1.0", 0)
					if (ver != node) want(name, node, 0) # the wrongver image
				} else {
					want(name, "-", 1, $3)
					want(name, node, 1, $3)              # unversioned: any version
				}
			} else {
				want(name, ver, 0)                       # undefined, data, local, section
				want(name, "-", 0)
			}
		}
		END {
			n = split(allnames, names, " ")
			for (i = 1; i <= n; i++)
				if (!(names[i] in seen)) { want(names[i], node, 0); want(names[i], "-", 0) }
			want("vdso_fake_localized", "-", 0)
			want("vdso_fake_localized", node, 0)
			want("no_such_symbol", "-", 0)
		}' "$1"
}

# Every PT_LOAD at p_offset == p_vaddr, and not one dynamic relocation.
check_flat() {
	f=$1 what=$2
	bad=$(readelf -lW "$f" | awk '$1 == "LOAD" && strtonum_ok($2) != strtonum_ok($3) { print }
		function strtonum_ok(x) { sub(/^0x0*/, "", x); return x }')
	relocs=$(readelf -rW "$f" | grep -c '^ *[0-9a-f]\{8,\} ')
	if [ -z "$bad" ] && [ "$relocs" -eq 0 ]; then
		ok "$what: flat (p_offset == p_vaddr) and relocation-free"
	else
		not_ok "$what: flat (p_offset == p_vaddr) and relocation-free"
		echo "#   LOAD with p_offset != p_vaddr: ${bad:-none}; relocations: $relocs"
	fi
}

# ------------------------------------------------------------------------

for dir in "$images"/*/; do
	arch=$(basename "$dir")
	if [ -f "$dir/SKIP" ]; then
		skip "$arch: $(cat "$dir/SKIP")"
		continue
	fi
	[ -f "$dir/both.so" ] || { not_ok "$arch: no both.so and no SKIP"; continue; }
	node=$(readelf -V -W "$dir/both.so" | awk '/Flags: none/ { sub(/.*Name: /, ""); print; exit }')
	fnames=$(readelf_symbols "$dir/both.so" | awk '($5 == "FUNC") && $8 != "UND" { n = $9; sub(/@.*/, "", n); print n }' | sort -u | tr '\n' ' ')

	for img in "$dir"/*.so; do
		variant=$(basename "$img" .so)
		what="$arch/$variant"
		# ld writes DT_MIPS_XHASH, not DT_GNU_HASH, for --hash-style=gnu on
		# mips: an image with no hash table the library knows must be
		# refused cleanly (and every call then takes the syscall).
		if ! readelf -dW "$img" | grep -q '(HASH)\|(GNU_HASH)'; then
			if "$imgdump" "$img" >"$tmp/dump" 2>"$tmp/err"; then
				not_ok "$what: no DT_HASH/DT_GNU_HASH ($(readelf -dW "$img" | grep -o '(MIPS_XHASH)' || echo none)): refused"
			else
				ok "$what: no DT_HASH/DT_GNU_HASH ($(readelf -dW "$img" | grep -o '(MIPS_XHASH)' || echo none)): refused ($(cat "$tmp/err" | sed 's/.*: //'))"
			fi
			continue
		fi
		if ! "$imgdump" "$img" >"$tmp/dump" 2>"$tmp/err"; then
			not_ok "$what: parsed by the library"
			sed 's/^/#   /' "$tmp/err"
			continue
		fi
		ok "$what: parsed by the library"

		readelf_header "$img" >"$tmp/h.want"
		es_known=1; grep -q ' ? ' "$tmp/h.want" && es_known=0
		imgdump_header "$tmp/dump" "$es_known" >"$tmp/h.got"
		check_same "$what: class, byte order, machine, hash entry size, tables, build-id as readelf" \
			"$tmp/h.want" "$tmp/h.got"

		readelf_symbols "$img" >"$tmp/s.want"
		imgdump_symbols "$tmp/dump" >"$tmp/s.got"
		check_same "$what: dynamic symbols as readelf --dyn-syms ($(wc -l <"$tmp/s.want") entries)" \
			"$tmp/s.want" "$tmp/s.got"

		readelf_verdefs "$img" >"$tmp/v.want"
		imgdump_verdefs "$tmp/dump" >"$tmp/v.got"
		check_same "$what: version definitions as readelf -V ($(grep -c ^verdef "$tmp/v.want") entries)" \
			"$tmp/v.want" "$tmp/v.got"

		mode=versioned
		grep -q ^verdef "$tmp/v.want" || mode=unversioned
		lookup_expectations "$tmp/s.want" "$node" "$fnames" "$mode" >"$tmp/l.want"
		awk '{ print $1, $2 }' "$tmp/l.want" | "$imgdump" "$img" --lookup >"$tmp/l.got" 2>&1
		check_same "$what: lookup(name, version) finds exactly readelf's defined functions ($(grep -c found "$tmp/l.want") hits, $(grep -c absent "$tmp/l.want") refusals)" \
			"$tmp/l.want" "$tmp/l.got"

		case $variant in callable | only*) check_flat "$img" "$what" ;; esac
	done

	# s390x: DT_HASH entries are 8 bytes (the 64-bit s390 ABI), which the
	# parser must know rather than assume 4.
	if [ "$arch" = s390x ]; then
		es=$("$imgdump" "$dir/sysv.so" | awk '$1 == "header" { print $5 }')
		if [ "$es" = 8 ] && readelf -SW "$dir/sysv.so" | grep -q '\.hash .* 08 '; then
			ok "s390x: .hash entries are 8 bytes (readelf ES 08) and the library says $es"
		else
			not_ok "s390x: .hash entries are 8 bytes (readelf ES 08) and the library says $es"
		fi
	fi
done

done_testing
