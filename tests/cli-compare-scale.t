#!/bin/sh
# compare scales: matching the rows of two bench files by label is linear
# (a hash table, not a scan per row) and the memory a small multiple of the
# input.  Deterministic: the label probes compare reports under
# VDSOKIT_COMPARE_PROBES=1 are counted (a scan per row would need n^2/2),
# and the memory is bounded with ulimit -v; no timing.
. "$(dirname "$0")/lib.sh"

rows=40000
# Two files of $rows results, the second in reverse order, plus a row each
# side alone; short rows (the worst ratio of memory to input).
python3 - "$tmp" "$rows" <<'PY'
import json, sys
tmp, n = sys.argv[1], int(sys.argv[2])
def write(path, labels, ns):
    rows = [{"label": l, "paths": {"vdsokit": {"median_ns": ns}, "syscall": {"median_ns": 100}}} for l in labels]
    with open(path, "w") as f:
        json.dump({"schema": "vdsokit-bench", "schema_version": 1, "results": rows}, f)
labels = ["clock_gettime(%d)" % i for i in range(n)]
write(tmp + "/before.json", labels + ["only_before"], 20)
write(tmp + "/after.json", labels[::-1] + ["only_after"], 10)
PY
input=$(($(wc -c <"$tmp/before.json") + $(wc -c <"$tmp/after.json")))

VDSOKIT_COMPARE_PROBES=1 "$vdsokit" compare --json "$tmp/before.json" "$tmp/after.json" \
	>"$tmp/out" 2>"$tmp/err"
status=$?
expect_status "compare of two files of $rows rows" 0
probes=$(sed -n 's/.* rows, \([0-9]*\) label probes$/\1/p' "$tmp/err")
if [ -n "$probes" ] && [ "$probes" -le $((8 * rows)) ]; then
	ok "label matching is linear: $probes probes for $((rows + 2)) rows (a scan per row: ~$((rows / 2 * rows)))"
else
	not_ok "label matching: '${probes:-no count}' probes for $rows rows, want <= $((8 * rows))"
	diag <"$tmp/err"
fi
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
