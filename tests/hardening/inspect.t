#!/bin/sh
# SPDX-License-Identifier: MIT
# `vdsokit inspect FILE` on every malformed image of the corpus
# (tests/hardening/malformed.c --write): exit status 2 and a message on
# stderr naming the file and the problem (the parser's error text).
# Then on up to 1000 inputs the fuzzer kept (VDSOKIT_FUZZ_CORPUS, else
# BUILD/fuzz/corpus, after tests/hardening/fuzz.t or make fuzz) and its
# seeds: images the parser accepts with odd contents get printed too; the
# exit status must be 0 or 2 (a sanitizer's report exits 1).
# VDSOKIT_BUILD picks the build (build/asan: the CLI under ASan/UBSan).
build=${VDSOKIT_BUILD:-build}
cli=$build/vdsokit
gen=$build/tests/malformed.t
if [ ! -x "$cli" ] || [ ! -x "$gen" ]; then
	echo "1..0 # SKIP $cli or $gen not built (make, make tests)"
	exit 0
fi
# The CLI may be older than inspect: an empty argument list says which.
if "$cli" inspect 2>&1 | grep -q "not available in this build"; then
	echo "1..0 # SKIP $cli has no inspect yet"
	exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$gen" --write "$dir/cases" || { echo "1..1"; echo "not ok 1 - $gen --write failed"; exit 0; }
n=0
while IFS="$(printf '\t')" read -r file code text; do
	n=$((n + 1))
	"$cli" inspect "$dir/cases/$file" >"$dir/out" 2>"$dir/err"
	status=$?
	msg=$(head -1 "$dir/err")
	# A file that is no ELF at all (empty, or without the magic) is named so
	# by the CLI, in its own words, rather than with the parser's error text.
	if [ "$code" = 2 ] || [ ! -s "$dir/cases/$file" ]; then
		text="not an ELF file"
	fi
	if [ "$status" -eq 2 ] && grep -qF "$dir/cases/$file" "$dir/err" && grep -qF "$text" "$dir/err"; then
		echo "ok $n - inspect $file: exit 2, \"$msg\""
	else
		echo "not ok $n - inspect $file: exit $status (want 2), stderr \"$msg\" (want the file and \"$text\", error $code)"
		sed 's/^/# /' "$dir/err" | head -20
	fi
done <"$dir/cases/cases.tsv"

corpus=${VDSOKIT_FUZZ_CORPUS:-$build/fuzz/corpus}
seeds=$(dirname "$corpus")/seeds
inputs=$(find "$corpus" "$seeds" -type f 2>/dev/null | sort | head -1000)
n=$((n + 1))
if [ -z "$inputs" ]; then
	echo "ok $n # SKIP no fuzz corpus in $corpus (make fuzz)"
else
	count=0 accepted=0 bad=""
	for f in $inputs; do
		count=$((count + 1))
		"$cli" inspect "$f" >/dev/null 2>"$dir/err"
		case $? in
		0) accepted=$((accepted + 1)) ;;
		2) ;;
		*) bad="$bad $f" ;;
		esac
		[ -z "$bad" ] || break
	done
	if [ -z "$bad" ]; then
		echo "ok $n - inspect on $count fuzzer inputs: $accepted printed, the rest refused with exit 2"
	else
		echo "not ok $n - inspect$bad: exit status neither 0 nor 2"
		head -20 "$dir/err" | sed 's/^/# /'
	fi
fi
echo "1..$n"
