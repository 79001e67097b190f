#!/bin/sh
# SPDX-License-Identifier: MIT
# The README and the docs it leads to work as written:
#  - every fenced block of them runs as a reader would run it
#    (tests/doc-blocks.sh: C programs compiled against the build and run,
#    shell blocks run in a scratch directory with the build's vdsokit;
#    sample outputs between <!-- sample --> markers, which
#    `make readme-samples` writes from real runs);
#  - their relative links lead to files that exist;
#  - docs/library.md's initialisation and getrandom paragraphs say what
#    libvdsokit(3)'s ATTRIBUTES say, word for word.
. "$(dirname "$0")/lib.sh"
. "$top/tests/doc-blocks.sh"

docs="README.md docs/library.md docs/performance.md docs/seeds.md docs/matrix.md"

if [ ! -f "$build/libvdsokit.a" ]; then
	echo "1..0 # SKIP $build/libvdsokit.a not built (make)"
	exit 0
fi
doc_env
for doc in $docs; do
	doc_blocks check "$top/$doc"
done

# Relative links: [text](path) and [text](path#anchor), resolved from the
# document's directory.
for doc in $docs; do
	base=$(dirname "$top/$doc")
	grep -o '](\([^)#[:space:]]*\)[^)]*)' "$top/$doc" | sed 's/^](//; s/[#)].*//' | sort -u |
		grep -v -e '^[a-z]*:' -e '^$' >"$tmp/links" || true
	missing=$(while read -r link; do [ -e "$base/$link" ] || printf ' %s' "$link"; done <"$tmp/links")
	if [ -z "$missing" ]; then
		ok "$doc: its $(wc -l <"$tmp/links") relative links lead to files"
	else
		not_ok "$doc: links to files that do not exist:$missing"
	fi
done

# A paragraph of docs/library.md (from the line starting with PREFIX to the
# next blank line) against one of libvdsokit(3)'s ATTRIBUTES (the one whose
# text starts the same), both as plain words: Markdown's backquotes and
# roff's escapes out, whitespace folded.
plain() { sed -e 's/`//g' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' | tr -s ' \n\t' '   ' | sed 's/^ //; s/ $//'; }
for prefix in 'Initialisation: ' '`vdsokit_getrandom` gives each thread'; do
	awk -v p="$prefix" 'index($0, p) == 1 { on = 1 } on && /^$/ { exit } on' "$top/docs/library.md" |
		plain >"$tmp/md.par"
	start=$(printf '%s' "$prefix" | plain)
	awk '/^\.SH ATTRIBUTES/ { on = 1; par = ""; next } on && /^\.(SH|PP)/ { print par; par = ""; if ($0 ~ /^\.SH/) exit; next }
	     on { par = par " " $0 } END { if (on && par != "") print par }' "$top/man/libvdsokit.3" |
		while IFS= read -r par; do
		p=$(printf '%s' "$par" | plain)
		case $p in "$start"*) printf '%s' "$p" ;; esac
	done >"$tmp/man.par"
	if [ -s "$tmp/md.par" ] && [ "$(cat "$tmp/md.par")" = "$(cat "$tmp/man.par")" ]; then
		ok "docs/library.md's paragraph '$start...' is libvdsokit(3)'s ATTRIBUTES one, word for word"
	else
		not_ok "docs/library.md's paragraph '$start...' differs from libvdsokit(3)'s ATTRIBUTES (- docs, + man)"
		{ tr ' ' '\n' <"$tmp/md.par" >"$tmp/md.words"; tr ' ' '\n' <"$tmp/man.par" >"$tmp/man.words"
		  diff "$tmp/md.words" "$tmp/man.words" | head -10; } | diag
	fi
done

done_testing
