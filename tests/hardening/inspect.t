#!/bin/sh
# `vdsokit inspect FILE` on every malformed image of the corpus
# (tests/hardening/malformed.c --write): exit status 2 and a message on
# stderr naming the file and the problem (the parser's error text).
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
	if [ "$status" -eq 2 ] && grep -qF "$dir/cases/$file" "$dir/err" && grep -qF "$text" "$dir/err"; then
		echo "ok $n - inspect $file: exit 2, \"$msg\""
	else
		echo "not ok $n - inspect $file: exit $status (want 2), stderr \"$msg\" (want the file and \"$text\", error $code)"
		sed 's/^/# /' "$dir/err" | head -20
	fi
done <"$dir/cases/cases.tsv"
echo "1..$n"
