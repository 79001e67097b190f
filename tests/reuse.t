#!/bin/sh
# SPDX-License-Identifier: MIT
# Licensing a distribution can check:
#  - `reuse lint` (Debian's reuse) finds the copyright and licence of every
#    file, and the text of every licence used in LICENSES/;
#  - and, because .reuse/dep5's `Files: *` paragraph gives every file a
#    copyright and a default licence (so reuse alone would pass a file with
#    no header), every file names its licence itself: an
#    SPDX-License-Identifier line at its top, a FILE.license beside it, or a
#    dep5 paragraph other than `Files: *` (documentation, data, binaries);
#  - everything under tests/qemu/kernel/ (patches to Linux and the
#    configuration it builds with) is GPL-2.0-only, tests/qemu/glibc/
#    (patches to glibc) LGPL-2.1-or-later as glibc, everything else MIT.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

# Files: patterns of dep5's paragraphs but the catch-all, one a line.
# dep5's `*` matches `/` too, as a shell case pattern does.
sed -n '/^Files:/,/^[A-Z][A-Za-z-]*:/{ s/^Files://; /^[A-Z][A-Za-z-]*:/d; p }' .reuse/dep5 |
	tr ' \t' '\n\n' | grep -v '^$' | grep -vx '\*' >"$tmp/dep5.patterns"
in_dep5() {
	while read -r pattern; do
		# shellcheck disable=SC2254
		case $1 in $pattern) return 0 ;; esac
	done <"$tmp/dep5.patterns"
	return 1
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked and new files, as reuse sees them (ignored ones left out).
	git ls-files --cached --others --exclude-standard | grep -v '\.license$' |
		while read -r f; do [ -f "$f" ] && [ ! -L "$f" ] && echo "$f"; done >"$tmp/files"
	source="git"
else
	find . -path ./build -prune -o -path ./.git -prune -o -type f -print |
		sed 's|^\./||' | grep -v '\.license$' >"$tmp/files"
	source="find"
fi
# Each file's licence: from its .license file, or from its first lines
# (reuse reads the header; one identifier at the top is the project's
# rule).  One awk over every file: a fork per file is slow on a busy host.
while read -r f; do
	if [ -f "$f.license" ]; then echo "$f.license"; else echo "$f"; fi
done <"$tmp/files" >"$tmp/sources"
# The markers keep reuse from taking the pattern for this file's licence.
# REUSE-IgnoreStart
tr '\n' '\0' <"$tmp/sources" | xargs -0 awk '
	FNR == 1 { if (name != "") print name "\t" id; name = FILENAME; id = "" }
	FNR > 12 { nextfile }
	id == "" && match($0, /SPDX-License-Identifier: *[A-Za-z0-9.+-]+/) {
		id = substr($0, RSTART, RLENGTH); sub(/.*: */, "", id)
	}
	END { if (name != "") print name "\t" id }' | sed 's/\.license\t/\t/' >"$tmp/ids"
# REUSE-IgnoreEnd
: >"$tmp/unnamed"
: >"$tmp/wrong"
while IFS="$(printf '\t')" read -r f id; do
	case $f in LICENSE | LICENSES/* | .reuse/*) continue ;; esac
	if [ -z "$id" ]; then
		in_dep5 "$f" || echo "$f" >>"$tmp/unnamed"
		continue
	fi
	case $f in
	tests/qemu/kernel/*) want=GPL-2.0-only ;;
	tests/qemu/glibc/*) want=LGPL-2.1-or-later ;;
	*) want=MIT ;;
	esac
	[ "$id" = "$want" ] || echo "$f: $id, want $want" >>"$tmp/wrong"
done <"$tmp/ids"
count=$(wc -l <"$tmp/files")
if [ "$count" -gt 100 ] && [ ! -s "$tmp/unnamed" ]; then
	ok "each of the $count files ($source) names its licence (SPDX line, .license file or dep5)"
else
	not_ok "files that name no licence ($count files seen; add an SPDX-License-Identifier line at the top)"
	diag <"$tmp/unnamed"
fi
if [ ! -s "$tmp/wrong" ]; then
	ok "tests/qemu/kernel/ is GPL-2.0-only, tests/qemu/glibc/ LGPL-2.1-or-later, every other identifier MIT"
else
	not_ok "files with another licence than their part of the tree's"
	diag <"$tmp/wrong"
fi
check "LICENSE holds the MIT licence text" grep -q 'Permission is hereby granted, free of charge' LICENSE

if have reuse; then
	if reuse lint >"$tmp/lint" 2>&1; then
		ok "reuse lint: $(grep -i 'compliant' "$tmp/lint")"
	else
		not_ok "reuse lint"
		grep -v '^$' "$tmp/lint" | head -40 | diag
	fi
else
	skip "reuse lint: reuse not installed (Debian package reuse; scripts/install-deps)"
fi
done_testing
