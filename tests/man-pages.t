#!/bin/sh
# SPDX-License-Identifier: MIT
# A manual page per public call, as installed:
#  - after `make install DESTDIR=...`, `man -w NAME` finds a section-3 page
#    for every function include/vdsokit.h declares (the family's page, or a
#    .so link to it), and that page has the function in its NAME line and
#    its SYNOPSIS, and the sections a caller needs;
#  - every installed page renders without a groff warning (-ww);
#  - libvdsokit(3) refers to every page that is not a link;
#  - every page's example compiles against the header and the library, and
#    runs with exit status 0.
. "$(dirname "$0")/lib.sh"
header=$top/include/vdsokit.h

# The header's public functions (as tests/cli-man.t finds them).
awk '
	/^#/ { next }
	/^[a-z][a-z0-9_ *]*[ *]vdsokit_[a-z0-9_]+\(/ && !/^static/ && !/vdsokit__/ {
		sub(/\(.*/, ""); sub(/.*[ *]/, ""); print
	}' "$header" | sort -u >"$tmp/functions"
count=$(wc -l <"$tmp/functions")
[ "$count" -ge 30 ] || not_ok "found only $count functions in $header"

dest=$tmp/dest
if make -s -C "$top" install DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR=..."
else
	not_ok "make install DESTDIR=..."
	tail -10 "$tmp/install.log" | diag
fi
mandir=$dest/usr/local/share/man

if ! have man; then
	skip "man -w finds every function: man (man-db) not installed"
else
	missing=""
	: >"$tmp/pages"
	while read -r fn; do
		page=$(MANPATH=$mandir man -w "$fn" 2>/dev/null | head -1)
		case $page in
		"$mandir"/man3/*) printf '%s %s\n' "$fn" "$page" >>"$tmp/pages" ;;
		*) missing="$missing $fn" ;;
		esac
	done <"$tmp/functions"
	if [ -z "$missing" ]; then
		ok "man -w finds a section-3 page for each of the $count functions of vdsokit.h"
	else
		not_ok "no installed page for:$missing"
	fi
	# The page must be about the function: in NAME, in SYNOPSIS, and with
	# the sections the issue asks for.
	bad=""
	while read -r fn page; do
		awk -v fn="$fn" '
			/^\.SH / { section = $0; sub(/^\.SH +/, "", section); gsub(/"/, "", section); seen[section] = 1; next }
			section == "NAME" && index($0, fn) { name = 1 }
			section == "SYNOPSIS" && /^\.BI? / && index($0, fn "(") { synopsis = 1 }
			END {
				split("RETURN VALUE|ERRORS|ATTRIBUTES|EXAMPLES", want, "|")
				for (i in want) if (!seen[want[i]]) exit 1
				exit !(name && synopsis)
			}' "$page" || bad="$bad $fn(${page##*/})"
	done <"$tmp/pages"
	if [ -s "$tmp/pages" ] && [ -z "$bad" ]; then
		ok "each page names its function in NAME and SYNOPSIS, with RETURN VALUE, ERRORS, ATTRIBUTES and EXAMPLES"
	else
		not_ok "pages without the function in NAME/SYNOPSIS or a section:$bad"
	fi
fi

if ! have groff; then
	skip "pages render without warnings: groff not installed"
else
	# From the manual's root, where a link page's `.so man3/...` resolves.
	warned=""
	pages=$(cd "$mandir" && ls man1/*.1 man3/*.3 2>/dev/null)
	for page in $pages; do
		(cd "$mandir" && groff -ww -z -man "$page") >"$tmp/groff.out" 2>&1
		if [ -s "$tmp/groff.out" ]; then
			warned="$warned $page"
			diag <"$tmp/groff.out"
		fi
	done
	if [ -n "$pages" ] && [ -z "$warned" ]; then
		ok "the $(echo "$pages" | wc -l) installed pages render without warnings (groff -ww)"
	else
		not_ok "pages with groff warnings:${warned:- (no pages installed)}"
	fi
fi

# Pages that are not links: libvdsokit(3) must refer to each.
unreferred=""
for page in "$top"/man/vdsokit_*.3; do
	head -1 "$page" | grep -q '^\.so ' && continue
	name=${page##*/}
	name=${name%.3}
	grep -q "^\.BR $name (3)" "$top/man/libvdsokit.3" || unreferred="$unreferred $name"
done
if [ -z "$unreferred" ]; then
	ok "libvdsokit(3) refers to every function's page"
else
	not_ok "libvdsokit(3) does not refer to:$unreferred"
fi

# The examples: the EXAMPLES section's .EX block, unescaped, built against
# this tree's header and static library, and run (the image example reads a
# real vDSO image).
lib=$build/libvdsokit.a
if [ ! -f "$lib" ] || ! have cc; then
	skip "examples: no $lib or no cc"
else
	failed_examples=""
	for page in "$top"/man/vdsokit_*.3; do
		head -1 "$page" | grep -q '^\.so ' && continue
		name=${page##*/}
		name=${name%.3}
		awk '/^\.SH / { ex = ($2 == "EXAMPLES"); next }
		     ex && /^\.EX/ { on = 1; next } ex && /^\.EE/ { on = 0; next } on' "$page" |
			sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$tmp/$name.c"
		if [ ! -s "$tmp/$name.c" ]; then
			failed_examples="$failed_examples $name(none)"
		elif ! cc -std=gnu11 -Wall -Werror -I"$top/include" -o "$tmp/$name" "$tmp/$name.c" "$lib" \
			-lpthread >"$tmp/cc.out" 2>&1; then
			failed_examples="$failed_examples $name(build)"
			head -10 "$tmp/cc.out" | diag
		elif ! "$tmp/$name" "$top/tests/qemu/images/amd64.so" >"$tmp/run.out" 2>&1; then
			failed_examples="$failed_examples $name(exit $?)"
			head -5 "$tmp/run.out" | diag
		fi
	done
	if [ -z "$failed_examples" ]; then
		ok "every page's example builds (-Wall -Werror) and runs"
	else
		not_ok "examples that fail:$failed_examples"
	fi
fi
done_testing
