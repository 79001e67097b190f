#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/json.md and the JSON agree: for `vdsokit info --json`, every member
# the output has is in docs/json.md's table for info, and every member the
# table names is in the output.  The members other sections describe are
# left to them: the schema header, `host`'s contents (the shared host
# object) and the image inventory under `image` (the inventory table).
. "$(dirname "$0")/lib.sh"

if ! have jq; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi

# doc_members HEADING: the member names of the table under "### HEADING" in
# docs/json.md, one a line ("a[].b"), several in one cell split.
doc_members() {
	awk -v heading="### $1" '
		$0 == heading { inside = 1; next }
		inside && /^#/ { exit }
		inside && /^\| `/ { split($0, cells, "|"); print cells[2] }
	' "$top/docs/json.md" | grep -o '`[^`]*`' | tr -d '`' | sed 's/\[\]$//' | sort -u
}

# json_members FILE: every member path of the document ("a[].b"), arrays'
# elements merged, less the members other sections describe.
json_members() {
	jq -r '[paths | map(if type == "number" then "[]" else . end)] | unique | .[] |
		select(.[-1] != "[]") | join(".") | gsub("\\.\\[\\]"; "[]")' "$1" |
		grep -vxE 'schema|schema_version|tool(\..*)?|host\..*' |
		grep -vE '^image\.' | sort -u
	jq -r 'if .image then "image.start", "image.end" else empty end' "$1"
}

# compare NAME FILE: both ways, and the lists diffed when they differ.
compare() {
	doc_members "$1" >"$tmp/doc"
	json_members "$2" | sort -u >"$tmp/json"
	if [ ! -s "$tmp/doc" ]; then
		not_ok "docs/json.md has a table under ### $1"
		return
	fi
	undocumented=$(comm -13 "$tmp/doc" "$tmp/json" | paste -sd' ')
	absent=$(comm -23 "$tmp/doc" "$tmp/json" | paste -sd' ')
	if [ -z "$undocumented" ]; then
		ok "$1: every member of its JSON is in docs/json.md ($(wc -l <"$tmp/json") members)"
	else
		not_ok "$1: members docs/json.md does not list: $undocumented"
	fi
	if [ -z "$absent" ]; then
		ok "$1: every member docs/json.md lists is in its JSON"
	else
		not_ok "$1: members docs/json.md lists that its JSON lacks: $absent"
	fi
}

run info --json
if [ "$status" -eq 0 ] && jq -e . "$tmp/out" >/dev/null 2>&1; then
	cp "$tmp/out" "$tmp/info.json"
	compare '`info`' "$tmp/info.json"
else
	not_ok "vdsokit info --json (exit $status)"
	diag <"$tmp/err"
fi

done_testing
