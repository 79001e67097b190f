#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/json.md and the JSON agree, for every command that has --json: each
# member an output has is in the command's table in docs/json.md, each
# member a table names is in the outputs (a member written `name?` may be
# missing: it is present only in some outputs), and no member the table
# gives as always present is missing from an object that has its siblings.
# The tables a command's table takes in (the host object, the image
# inventory, bench's path object, abi's outcome, verify's figures) are
# checked wherever they appear.  Each command runs in the conditions its
# conditional members need (--image, --no-bench, one input file and two),
# briefly.  Every output is valid JSON (jq); the text and the JSON give the
# same counts (abi, verify) and the same rows and routes (bench).
# shellcheck disable=SC2016,SC2046 # `backquoted` headings; lists of files
. "$(dirname "$0")/lib.sh"

if ! have jq; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi

doc=$top/docs/json.md

# table HEADING: the member names of the table under "### HEADING" in
# docs/json.md, one a line ("a[].b", "a[].b?" for a member that may be
# missing), several in one cell split.
table() {
	awk -v heading="### $1" '
		$0 == heading { inside = 1; next }
		inside && /^#/ { exit }
		inside && /^\| `/ { split($0, cells, "|"); print cells[2] }
	' "$doc" | grep -o '`[^`]*`' | tr -d '`' | sed 's/\[\]\(?*\)$/\1/'
}

# members HEADING [INCLUDED PREFIX...]...: the table's members, and those of
# each table it includes under each prefix: "host host." puts the host
# table's `kernel_release` as `host.kernel_release`.  Several prefixes of one
# table are given as "TABLE PREFIX1 PREFIX2", one argument; "-" is no prefix.
members() {
	table "$1"
	shift
	for include; do
		# shellcheck disable=SC2086 # the table's name, then its prefixes
		set -- $include
		name=$1
		shift
		for prefix; do
			[ "$prefix" = - ] && prefix=
			table "$name" | sed "s/^/$prefix/"
		done
	done
}

# paths FILE: every member path of the document ("a[].b"), arrays' elements
# merged, less the schema header (its own section in docs/json.md) and the
# keys of host.unknown (the names of host facts).
paths() {
	jq -r '[paths | map(if type == "number" then "[]" else . end)] | unique | .[] |
		select(.[-1] != "[]") | join(".") | gsub("\\.\\[\\]"; "[]")' "$1" |
		grep -vxE 'schema|schema_version|tool(\..*)?|host\.unknown\..+'
}

# presence FILE: per object path and key, in how many of the objects at that
# path the key is, and how many there are: "PARENT<tab>KEY<tab>HAVE<tab>OF";
# and "PARENT<tab><tab><tab>OF" for every object path.
presence() {
	jq -r '
		def norm: map(if type == "number" then "[]" else . end) | join(".") |
			gsub("\\.\\[\\]"; "[]");
		. as $d | [[], paths(type == "object")] |
		map(. as $p | {n: ($p | norm), keys: ($d | getpath($p) | keys)}) |
		group_by(.n)[] | .[0].n as $n | length as $c |
		"\($n)\t\t\t\($c)",
		([.[].keys[]] | group_by(.)[] | "\($n)\t\(.[0])\t\(length)\t\($c)")' "$1"
}

# sometimes FILE...: the members some object lacks whose siblings are there,
# in any of the files (one output each): "a[].b".
sometimes() {
	for f; do
		presence "$f" | sed "s|^|$f\t|"
	done | awk -F '\t' '
		$3 == "" { present[$1 SUBSEP $2] = 1; next }
		{ seen[$2 SUBSEP $3] = 1; if ($4 == $5) always[$1 SUBSEP $2 SUBSEP $3] = 1 }
		END {
			for (f_p in present) {
				split(f_p, a, SUBSEP)
				for (p_k in seen) {
					split(p_k, b, SUBSEP)
					if (b[1] == a[2] && !((a[1] SUBSEP p_k) in always))
						print (b[1] == "" ? "" : b[1] ".") b[2]
				}
			}
		}' | sort -u
}

# check_doc NAME FILE... -- MEMBERS-ARGS...: the outputs FILE... of one command
# against docs/json.md's members (members MEMBERS-ARGS...).
check_doc() {
	name=$1
	shift
	files=
	while [ "$1" != -- ]; do
		files="$files $1"
		shift
	done
	shift
	members "$@" | sort -u >"$tmp/doc.all"
	if [ ! -s "$tmp/doc.all" ]; then
		not_ok "docs/json.md has a table under ### $1"
		return
	fi
	sed 's/?$//' "$tmp/doc.all" | sort -u >"$tmp/doc"
	grep -v '?$' "$tmp/doc.all" | sort -u >"$tmp/doc.always"
	# shellcheck disable=SC2086 # the list of files
	for f in $files; do paths "$f"; done | sort -u >"$tmp/json"
	# shellcheck disable=SC2086
	sometimes $files >"$tmp/sometimes"

	undocumented=$(comm -13 "$tmp/doc" "$tmp/json" | paste -sd' ' -)
	# Absent: a member the outputs lack where they have its parent, an
	# object (none in a null, an empty array or a missing `name?`).
	# shellcheck disable=SC2086
	for f in $files; do presence "$f"; done | awk -F '\t' '$2 == "" { print $1 }' |
		sort -u >"$tmp/objects"
	absent=$(comm -23 "$tmp/doc.always" "$tmp/json" | awk '
		NR == FNR { have[$0] = 1; next }
		{ parent = $0; if (!sub(/\.[^.]*$/, "", parent)) parent = "" }
		parent in have' "$tmp/objects" - | paste -sd' ' -)
	unseen=$(comm -23 "$tmp/doc" "$tmp/json" | paste -sd' ' -)
	missing=$(comm -12 "$tmp/doc.always" "$tmp/sometimes" | paste -sd' ' -)
	if [ -z "$undocumented" ]; then
		ok "$name: every member of its JSON is in docs/json.md ($(wc -l <"$tmp/json") members)"
	else
		not_ok "$name: members docs/json.md does not list: $undocumented"
	fi
	if [ -z "$absent" ]; then
		ok "$name: every member docs/json.md lists is in its JSON"
		[ -z "$unseen" ] || echo "# $name: not produced here: $unseen"
	else
		not_ok "$name: members docs/json.md lists that its JSON lacks: $absent"
	fi
	if [ -z "$missing" ]; then
		ok "$name: the members docs/json.md gives as always present are"
	else
		not_ok "$name: members some objects lack, not marked \`name?\` in docs/json.md: $missing"
	fi
}

# valid OUT WHAT: the last run's output, kept as $tmp/OUT.json, is JSON.
valid() {
	cp "$tmp/out" "$tmp/$1.json"
	if [ "$status" -le 1 ] && [ -s "$tmp/$1.json" ] && jq -e . "$tmp/$1.json" >/dev/null 2>&1; then
		ok "$2: valid JSON (exit $status)"
	else
		not_ok "$2: valid JSON (exit $status)"
		diag <"$tmp/err"
	fi
}

# json OUT ARGS...: runs vdsokit ARGS... into $tmp/OUT.json, valid JSON.
json() {
	out=$1
	shift
	run "$@"
	valid "$out" "vdsokit $*"
}

arch=$("$vdsokit" --version | sed -n 's/.*, \([a-z0-9_]*\))$/\1/p')
image=$build/images/$arch/callable.so
if [ -f "$image" ]; then
	cp "$image" "$tmp/image.so"
	image=$tmp/image.so
else
	image=
	skip "no synthetic image for $arch (make images): --image outputs not checked"
fi
# with_image OUT ARGS...: json OUT ARGS... --image, when there is an image.
with_image() {
	if [ -n "$image" ]; then
		json "$@" --image "$image"
	fi
}
# refused OUT SYSCALL ARGS...: json OUT ARGS... with SYSCALL refused by a
# seccomp filter (EPERM), when tests/tools/sandbox-run is built: the members
# of a refused call.
sandbox=$build/tests/tools/sandbox-run
refused() {
	out=$1
	filter=$2
	shift 2
	[ -x "$sandbox" ] || return 0
	"$sandbox" --errno EPERM "$filter" -- "$vdsokit" "$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	valid "$out" "vdsokit $* ($filter refused)"
}
[ -x "$sandbox" ] || skip "$sandbox not built (make tests): refused calls' members not checked"

# outputs OUT...: those of the files $tmp/OUT.json that were written.
outputs() {
	for o; do
		[ -f "$tmp/$o.json" ] && echo "$tmp/$o.json"
	done
}

json report report --json
json report-nb report --json --no-bench
refused report-refused getrandom report --json
check_doc report $(outputs report report-nb report-refused) -- '`report`' 'host host.'

json info info --json
with_image info-img info --json
# An image without clock_gettime's symbol: the library falls back to the syscall.
absent=$build/images/$arch/absent.so
[ -f "$absent" ] && json info-absent info --json --image "$absent"
check_doc info $(outputs info info-img info-absent) -- '`info`' 'host host.' 'inventory image.'
# "null for none", not the API's -1.
if jq -se '[.[].functions[] | select((.syscall == null) != (.syscall_nr == null))] == []' \
	$(outputs info info-absent) >/dev/null; then
	ok "info: a function's syscall_nr is null exactly when it has no syscall"
else
	not_ok "info: a function's syscall_nr is null exactly when it has no syscall"
	jq -c '.functions[] | {function, syscall, syscall_nr}' $(outputs info info-absent) | diag
fi

"$vdsokit" dump -o "$tmp/vdso.so" 2>/dev/null
json inspect inspect "$tmp/vdso.so" --json
# A program needs versions of libc's symbols (DT_VERNEED).
json inspect-prog inspect "$vdsokit" --json
for name in gnu sysv unversioned; do
	f=$build/images/$arch/$name.so
	[ -f "$f" ] && json "inspect-$name" inspect "$f" --json
done
check_doc inspect $(outputs inspect inspect-prog inspect-gnu inspect-sysv inspect-unversioned) -- \
	'`inspect`' 'inventory -'

json bench bench --json --time 0.05 --functions clock_gettime,getcpu,getrandom,time \
	--clocks MONOTONIC,100
latency=
if [ "$arch" = x86_64 ] || [ "$arch" = i386 ]; then
	json bench-latency bench --json --time 0.02 --functions time --latency
	latency=bench-latency
fi
refused bench-refused getrandom bench --json --time 0.05 --functions getrandom,time
check_doc bench $(outputs bench $latency bench-refused) -- '`bench`' 'host host.' \
	'path floor. results[].paths.vdsokit. results[].paths.vdso. results[].paths.libc. results[].paths.syscall.'

json compare-one compare "$tmp/bench.json" --json
json compare-two compare "$tmp/bench.json" "$tmp/bench.json" --json --path vdso
check_doc compare $(outputs compare-one compare-two) -- '`compare`'

json verify verify --json --time 0.1
with_image verify-img verify --json --time 0.1
refused verify-refused getrandom verify --json --time 0.1
# units: the unit of each figure that has one, under the figure's name.
for f in $(outputs verify verify-img verify-refused); do
	jq '.checks[] |= (.numbers += (.units | with_entries(.value = 0)) | .units = {})' \
		"$f" >"$f.folded" && mv "$f.folded" "$f"
done
check_doc verify $(outputs verify verify-img verify-refused) -- '`verify`' 'host host.' 'figures checks[].numbers.'

json abi abi --json
with_image abi-img abi --json
refused abi-refused time abi --json
check_doc abi $(outputs abi abi-img abi-refused) -- '`abi`' 'host host.' \
	'outcome cases[].syscall. cases[].vdso. cases[].library.'

json doctor doctor --json
with_image doctor-img doctor --json
check_doc doctor $(outputs doctor doctor-img) -- '`doctor`' 'host host.'

# The text's counts are the JSON's.
run abi
want=$(jq -r '.summary | if .vdso_differs == null then "none ran" else
	"\(.cases) cases: \(.ran) ran, \(.not_run) could not be run, \(.refused) skipped (the reference refused); the vDSO differs from the syscall in \(.vdso_differs), the library in \(.library_differs)" end' "$tmp/abi.json")
if grep -qF "$want" "$tmp/out"; then
	ok "abi: the text's summary has the JSON's counts"
else
	not_ok "abi: the text's summary has the JSON's counts ($want)"
	tail -2 "$tmp/out" | diag
fi
# bench_routes OUT [SYSCALL] ARGS...: bench's rows and routes in the text are
# those of $tmp/OUT.json (written with ARGS and --json, with SYSCALL refused
# when given); the text says "failed" for the route of a call refused.
bench_routes() {
	out=$1
	filter=$2
	shift 2
	[ -f "$tmp/$out.json" ] || return 0
	jq -r '.results[] | "\(.label) \(if .paths.vdsokit.error then "failed" else (.route // "?") end)"' \
		"$tmp/$out.json" >"$tmp/routes.json"
	if [ -n "$filter" ]; then
		"$sandbox" --errno EPERM "$filter" -- "$vdsokit" bench "$@" >"$tmp/out" 2>"$tmp/err"
	else
		run bench "$@"
	fi
	awk '$1 == "function/clock" { on = 1; next } on && (/:/ || NF < 7) { exit } on { print $1, $2 }' \
		"$tmp/out" >"$tmp/routes.text"
	if [ -s "$tmp/routes.text" ] && cmp -s "$tmp/routes.json" "$tmp/routes.text"; then
		ok "bench $*${filter:+ ($filter refused)}: the text's rows and routes are the JSON's"
	else
		not_ok "bench $*${filter:+ ($filter refused)}: the text's rows and routes are the JSON's"
		diff "$tmp/routes.json" "$tmp/routes.text" | diag
	fi
}
bench_routes bench '' --time 0.05 --functions clock_gettime,getcpu,getrandom,time --clocks MONOTONIC,100
bench_routes bench-refused getrandom --time 0.05 --functions getrandom,time
run verify --time 0.1
want=$(jq -r '.summary | "\(.checks) checks: \(.passed) passed, \(.failed) failed, \(.skipped) skipped"' \
	"$tmp/verify.json")
if grep -qF "$want" "$tmp/out"; then
	ok "verify: the text's summary has the JSON's counts"
else
	not_ok "verify: the text's summary has the JSON's counts ($want)"
	tail -2 "$tmp/out" | diag
fi

# report: the text's Verdict line and the JSON's verdict say the same (two
# runs: a host's speedup is far from either side of the threshold, 2).
run report
id=$(jq -r '.verdict.id // "none"' "$tmp/report.json")
case $id in
user-space) line="runs in user space" ;;
like-syscall) line="costs about as much as the syscall" ;;
no-vdso) line="no vDSO here" ;;
not-measured) line="not measured" ;;
*) line="?" ;;
esac
if grep -q "^Verdict: .*$line" "$tmp/out"; then
	ok "report: the text's verdict is the JSON's ($id)"
else
	not_ok "report: the text's verdict is the JSON's ($id)"
	grep "Verdict" "$tmp/out" | diag
fi
if [ "$(jq -r '.verdict' "$tmp/report-nb.json")" = null ]; then
	ok "report --no-bench: no verdict, null in the JSON"
else
	not_ok "report --no-bench: no verdict, null in the JSON"
fi

done_testing
