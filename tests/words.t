#!/bin/sh
# SPDX-License-Identifier: MIT
# Code, docs and tests say things a reader outside the project can resolve:
# no numbers of an issue tracker that is not in the repository ("issue 22",
# "Issue 18"), and none of the in-house words that were replaced ("only32",
# "witness").  Generated and vendored text (the kernel series, the recorded
# samples) is left out.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

n=0
failed=0
files=$(find README.md CHANGELOG.md Makefile .ci bench cli debian docs fuzz include man scripts src tests \
	-type f ! -path 'tests/qemu/kernel/*' ! -path 'tests/doctor-samples/*' \
	! -path 'tests/qemu/images/*' ! -path 'tests/abi/*' ! -name '*.so' ! -name 'words.t' \
	2>/dev/null)

# none DESCRIPTION ERE: no line of the files matches ERE (case-insensitive).
none() {
	n=$((n + 1))
	# shellcheck disable=SC2086 # the list of files
	hits=$(grep -IinE "$2" $files 2>/dev/null | head -5)
	if [ -z "$hits" ]; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
		printf '%s\n' "$hits" | sed 's/^/#   /'
	fi
}

none "no issue numbers of a tracker outside the repository" \
	'\b(issues?|bugs?|tickets?|PR) ?#?[0-9]+\b|(^|[ (])#[0-9]{2,}([^-0-9a-z]|$)'
none "no reference to the tracker by an issue's name" \
	'\bthe (hardening|sandbox|lifecycle|contributor|CLI.layers|y2038) issue\b'
none "no \"only32\" (the image is time32only)" '\bonly32\b'
none "no \"witness\" (the stack probe's methods, doctor's evidence)" '\bwitness(es)?\b'

echo "1..$n"
[ "$failed" -eq 0 ]
