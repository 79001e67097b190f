#!/bin/sh
# SPDX-License-Identifier: MIT
# Every flag a user sets (OPT, CFLAGS, CPPFLAGS, LDFLAGS) reaches every
# compile and link step of `make` (library, shared library, CLI), and
# `make CC=clang OPT="-O3 -flto"` builds a CLI that runs: LTO objects are
# not object code, so a link step without the compile flags cannot read them.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

# The commands make would run for a fresh tree, continuation lines joined.
make -n -B --no-print-directory BUILD="$tmp/dry" CC=cc OPT="-O1 -DMARK_OPT" \
	CFLAGS=-DMARK_CFLAGS CPPFLAGS=-DMARK_CPPFLAGS LDFLAGS=-Wl,--defsym=mark_ldflags=0 all \
	2>"$tmp/make.err" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' >"$tmp/commands"
grep -E '^cc ' "$tmp/commands" >"$tmp/cc"
compiles=$(grep -c ' -c ' "$tmp/cc")
links=$(grep -vc ' -c ' "$tmp/cc")
check "make -n lists compile steps ($compiles) and link steps ($links)" \
	sh -c "[ $compiles -ge 10 ] && [ $links -ge 2 ]"
check "the shared library is linked by the compiler driver" grep -q -- '-shared' "$tmp/cc"

# missing_in FLAG FILE: the lines of FILE without FLAG, none wanted.
every_line_has() {
	what=$1 flag=$2 file=$3
	if grep -vF -- "$flag" "$file" >"$tmp/missing"; then
		not_ok "$what: $(wc -l <"$tmp/missing") steps lack $flag"
		diag <"$tmp/missing"
	else
		ok "$what ($(wc -l <"$file") steps)"
	fi
}
every_line_has "OPT reaches every compile and link" -DMARK_OPT "$tmp/cc"
every_line_has "CFLAGS reaches every compile and link" -DMARK_CFLAGS "$tmp/cc"
grep ' -c ' "$tmp/cc" >"$tmp/compiles"
every_line_has "CPPFLAGS reaches every compile" -DMARK_CPPFLAGS "$tmp/compiles"
every_line_has "a command-line CPPFLAGS keeps the include paths" "-Iinclude" "$tmp/compiles"
grep -v ' -c ' "$tmp/cc" >"$tmp/links"
every_line_has "LDFLAGS reaches every link" --defsym=mark_ldflags=0 "$tmp/links"

# The real thing: clang with link-time optimisation, into a build of its own.
if have clang; then
	if make --no-print-directory -j2 BUILD="$tmp/lto" CC=clang OPT="-O3 -flto" all \
		>"$tmp/lto.log" 2>&1 && "$tmp/lto/vdsokit" --version >"$tmp/out" 2>&1; then
		ok "make CC=clang OPT='-O3 -flto' builds; it runs: $(cat "$tmp/out")"
	else
		not_ok "make CC=clang OPT='-O3 -flto' fails"
		grep -iE 'error|not recognized' "$tmp/lto.log" | head -10 | diag
	fi
else
	skip "clang not installed"
fi

done_testing
