#!/bin/sh
# SPDX-License-Identifier: MIT
# Fuzz-style: random labels into compare (--json through a strict JSON
# parser, --svg through xmllint, --markdown row by row, text without
# control bytes) and mutated images into inspect (--json and text, same
# rules, or a clean refusal).  tests/cli/fuzz_text.py does the work; a
# fixed seed by default (VDSOKIT_FUZZ_SEED=N for another), well under a
# minute.
. "$(dirname "$0")/lib.sh"

if ! have python3 || ! have xmllint; then
	echo "1..0 # SKIP python3 and xmllint (libxml2-utils) needed"
	exit 0
fi
seed=${VDSOKIT_FUZZ_SEED:-12}
rounds=${VDSOKIT_FUZZ_ROUNDS:-100}

# The host's own vDSO, as the image to mutate.
if ! "$vdsokit" dump -o "$tmp/vdso.so" 2>"$tmp/err"; then
	echo "1..0 # SKIP no vDSO to dump here: $(cat "$tmp/err")"
	exit 0
fi
python3 "$top/tests/cli/fuzz_text.py" "$vdsokit" "$tmp/vdso.so" "$tmp" "$seed" "$rounds" >"$tmp/fuzz.out" 2>&1
grep '^#' "$tmp/fuzz.out"
value() { sed -n "s/^$1 //p" "$tmp/fuzz.out"; }
# The descriptions quote the runs fuzz_text.py counted, not what ROUNDS asked for.
compare_runs=$(value compare_runs)
inspect_runs=$(value inspect_runs)
compare_what="${compare_runs:-no} runs (--json with --svg, --markdown, text) on $(value compare_files) bench files of random labels"
if [ "${compare_runs:-0}" -eq 0 ]; then
	not_ok "compare: no run counted: fuzz_text.py made none or did not finish (seed $seed, $rounds rounds)"
elif [ "$(value compare_failures)" = 0 ]; then
	ok "compare: $compare_what: well-formed output, and for the $(value compare_refusal_files) files with a \\u0000 label a clean refusal"
else
	not_ok "compare: $compare_what: $(value compare_failures) malformed outputs (seed $seed)"
fi
inspect_what="${inspect_runs:-no} runs (--json, text) on $(value inspect_images) mutated images"
if [ "${inspect_runs:-0}" -eq 0 ]; then
	not_ok "inspect: no run counted: fuzz_text.py made none or did not finish (seed $seed, $rounds rounds)"
elif [ "$(value inspect_failures)" = 0 ]; then
	ok "inspect: $inspect_what: well-formed output or a clean refusal"
else
	not_ok "inspect: $inspect_what: $(value inspect_failures) malformed outputs or crashes (seed $seed)"
fi
check "inspect accepted some mutated images (the names were really tried): $(value inspect_accepted_runs) of ${inspect_runs:-no} runs" \
	test "$(value inspect_accepted_runs)" -gt 20
if [ -z "$(value compare_failures)" ]; then
	not_ok "the fuzzer ran to the end"
	tail -20 "$tmp/fuzz.out" | diag
fi

# The cases of the issue, one by one.
bench_with_label() {
	printf '{ "schema": "vdsokit-bench", "schema_version": 1, "results": [ { "label": "%s", "paths": { "vdsokit": { "median_ns": 5 }, "syscall": { "median_ns": 50 } } } ] }' "$1" >"$tmp/one.json"
}
bench_with_label 'a\ud800b'
run compare --json "$tmp/one.json"
json_check "a lone surrogate \\ud800 becomes U+FFFD" "$tmp/out" '.rows[0].label == "a\ufffdb"'
printf '{ "schema": "vdsokit-bench", "schema_version": 1, "results": [ { "label": "x\377y", "paths": { "vdsokit": { "median_ns": 5 } } } ] }' >"$tmp/one.json"
run compare --json "$tmp/one.json"
json_check "a raw 0xFF byte becomes U+FFFD in JSON" "$tmp/out" '.rows[0].label == "x\ufffdy"'
run compare "$tmp/one.json"
check "... and \\xff on a terminal" grep -q '^x\\xffy ' "$tmp/out"
bench_with_label 'clear\u001b[2J'
run compare "$tmp/one.json"
check "an escape sequence in a label is shown, not sent: \\x1b[2J" grep -q '^clear\\x1b\[2J ' "$tmp/out"
bench_with_label 'two\nlines|pipe'
run compare --markdown "$tmp/one.json"
check "Markdown: a newline and a '|' in a label keep the row on one line" \
	grep -qx '| two lines\\|pipe | 50.0 | 5.00 | 10.0× |' "$tmp/out"
bench_with_label 'cut\u0000here'
run compare "$tmp/one.json"
expect_error "a \\u0000 in a label is refused, not cut" 2 'u0000 \(NUL\) in a string: not supported'

done_testing
