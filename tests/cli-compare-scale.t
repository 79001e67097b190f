#!/bin/sh
# SPDX-License-Identifier: MIT
# compare scales: matching the rows of two bench files by label is linear
# (a hash table, not a scan per row) and the memory a small multiple of the
# input.  Deterministic, no timing: tests/cli/compare_scale.c runs compare
# linked with -Wl,--wrap=json_get_string and counts the label reads (a scan
# per row would need n^2/2); the memory is bounded with ulimit -v.
. "$(dirname "$0")/lib.sh"

rows=40000
count_rows=5000
# Two files of N results, the second in reverse order, plus a row each side
# alone; short rows (the worst ratio of memory to input).
python3 - "$tmp" "$rows" "$count_rows" <<'PY'
import json, sys
tmp = sys.argv[1]
def write(path, labels, ns):
    rows = [{"label": l, "paths": {"vdsokit": {"median_ns": ns}, "syscall": {"median_ns": 100}}} for l in labels]
    with open(path, "w") as f:
        json.dump({"schema": "vdsokit-bench", "schema_version": 1, "results": rows}, f)
for name, n in (("", int(sys.argv[2])), ("count-", int(sys.argv[3]))):
    labels = ["clock_gettime(%d)" % i for i in range(n)]
    write("%s/%sbefore.json" % (tmp, name), labels + ["only_before"], 20)
    write("%s/%safter.json" % (tmp, name), labels[::-1] + ["only_after"], 10)
PY
input=$(($(wc -c <"$tmp/before.json") + $(wc -c <"$tmp/after.json")))

# --- the label reads, counted from outside compare -------------------------
objs=$(ls "$build"/cli/*.o "$build"/cli/*/*.o 2>/dev/null | grep -v '/main\.o$')
# VDSOKIT_SANITIZE: the -fsanitize flags of the build's objects (see cli-bench-raw.t).
# shellcheck disable=SC2086 # lists of words
if [ -z "$objs" ] || [ ! -f "$build/libvdsokit.a" ]; then
	skip "label reads: the CLI's objects are not in $build"
	skip "label reads: linear"
elif ! ${CC:-cc} ${VDSOKIT_SANITIZE:-} -std=gnu11 -O2 -D_GNU_SOURCE -I"$top/include" -I"$top/cli" \
	-o "$tmp/compare_scale" "$top/tests/cli/compare_scale.c" $objs "$build/libvdsokit.a" \
	-Wl,--wrap=json_get_string -lm ${LDFLAGS:-} >"$tmp/cc.err" 2>&1; then
	not_ok "tests/cli/compare_scale.c builds against $build"
	diag <"$tmp/cc.err"
else
	"$tmp/compare_scale" "$tmp/count-before.json" "$tmp/count-after.json" "$count_rows" \
		>"$tmp/count.tap" 2>"$tmp/count.err"
	# Its TAP lines, renumbered into ours.
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok [0-9]* - }" ;;
		"not ok "*) not_ok "${line#not ok [0-9]* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$tmp/count.tap"
	grep -q '^not ok\|^ok' "$tmp/count.tap" || { not_ok "compare_scale ran"; diag <"$tmp/count.err"; }
fi

# --- the binary itself: every row matched ---------------------------------
"$vdsokit" compare --json "$tmp/before.json" "$tmp/after.json" >"$tmp/out" 2>"$tmp/err"
status=$?
expect_status "compare of two files of $rows rows" 0
if have jq; then
	json_check "every row matched: 2.00x on all shared rows, both lone rows present" "$tmp/out" \
		"([.rows[] | select(.improvement == 2)] | length) == $rows and
		 ([.rows[] | select(.label == \"only_before\" or .label == \"only_after\")] | length) == 2"
else
	skip "jq not installed"
fi

# Memory: 12 times the input plus 64 MiB for the program, in address space
# (not for a sanitizer build: ASan reserves terabytes of address space).
if sanitized address; then
	skip "memory bound: $vdsokit is built with AddressSanitizer"
	done_testing
	exit
fi
limit_kb=$((input * 12 / 1024 + 65536))
(ulimit -v "$limit_kb" && "$vdsokit" compare "$tmp/before.json" "$tmp/after.json") \
	>"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 0 ]; then
	ok "compare runs within 12x its $((input / 1024)) KiB input + 64 MiB (ulimit -v $limit_kb)"
else
	not_ok "compare does not run within 12x its input + 64 MiB (exit $status)"
	head -3 "$tmp/err" | diag
fi

done_testing
