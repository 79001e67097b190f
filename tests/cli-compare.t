#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit compare on two small bench files with known figures: the table,
# the Markdown and the JSON, checked to the figure; one file (syscall vs
# libvdsokit); the chart; and the errors for unusable input.
. "$(dirname "$0")/lib.sh"

# The original m68k measurement's figures (2057 -> 675 ns), a coarse clock, a thread
# pointer, a row only one side has, and a path that was not measured.
cat >"$tmp/before.json" <<'JSON'
{
  "schema": "vdsokit-bench", "schema_version": 1,
  "host": { "kernel_release": "6.1.0", "machine": "m68k" },
  "results": [
    { "label": "clock_gettime(MONOTONIC)",
      "paths": { "vdsokit": { "available": true, "median_ns": 2057 },
                 "syscall": { "available": true, "median_ns": 2040 } } },
    { "label": "clock_gettime(REALTIME_COARSE)",
      "paths": { "vdsokit": { "available": true, "median_ns": 1150 },
                 "syscall": { "available": true, "median_ns": 1150 } } },
    { "label": "thread_pointer",
      "paths": { "vdsokit": { "available": true, "median_ns": 580 },
                 "syscall": { "available": false } } },
    { "label": "only_before",
      "paths": { "vdsokit": { "available": true, "median_ns": 100 } } }
  ]
}
JSON
cat >"$tmp/after.json" <<'JSON'
{
  "schema": "vdsokit-bench", "schema_version": 1,
  "host": { "kernel_release": "6.18.0", "machine": "m68k" },
  "results": [
    { "label": "thread_pointer",
      "paths": { "vdsokit": { "available": true, "median_ns": 4.2 } } },
    { "label": "clock_gettime(MONOTONIC)",
      "paths": { "vdsokit": { "available": true, "median_ns": 675 } } },
    { "label": "clock_gettime(REALTIME_COARSE)",
      "paths": { "vdsokit": { "available": true, "median_ns": 95.5 } } },
    { "label": "only_after",
      "paths": { "vdsokit": { "available": true, "median_ns": 50 } } }
  ]
}
JSON

# expect_line DESCRIPTION LINE: LINE is in the last output, exactly.
expect_line() {
	if grep -Fqx -- "$2" "$tmp/out"; then
		ok "$1"
	else
		not_ok "$1: no line '$2'"
		diag <"$tmp/out"
	fi
}

run compare "$tmp/before.json" "$tmp/after.json"
expect_status "compare BEFORE AFTER" 0
check "text: the table's heading" grep -Eq '^function/clock +before \(ns/call\) +after \(ns/call\) +improvement$' "$tmp/out"
check "text: 2057 -> 675 is 3.05x" grep -Eq '^clock_gettime\(MONOTONIC\) +2057 +675 +3\.05×$' "$tmp/out"
check "text: 1150 -> 95.5 is 12.0x" grep -Eq '^clock_gettime\(REALTIME_COARSE\) +1150 +95\.5 +12\.0×$' "$tmp/out"
check "text: 580 -> 4.2 is 138x" grep -Eq '^thread_pointer +580 +4\.20 +138×$' "$tmp/out"
check "text: a row only before has no after" grep -Eq '^only_before +100 +- +-$' "$tmp/out"
check "text: a row only after comes last" sh -c "tail -1 '$tmp/out' | grep -Eq '^only_after +- +50\.0 +-$'"
check "text: both kernels named" grep -q '^before: .*(Linux 6.1.0 m68k)$' "$tmp/out"

run compare --markdown "$tmp/before.json" "$tmp/after.json"
expect_status "compare --markdown" 0
expect_line "Markdown heading" "| function/clock | before (ns/call) | after (ns/call) | improvement |"
expect_line "Markdown alignment row" "|:---|---:|---:|---:|"
expect_line "Markdown: MONOTONIC" "| clock_gettime(MONOTONIC) | 2057 | 675 | 3.05× |"
expect_line "Markdown: REALTIME_COARSE" "| clock_gettime(REALTIME_COARSE) | 1150 | 95.5 | 12.0× |"
expect_line "Markdown: thread pointer" "| thread_pointer | 580 | 4.20 | 138× |"
check "Markdown: nothing but the table" sh -c "[ \$(grep -vc '^|' '$tmp/out') -eq 0 ]"

run compare --json "$tmp/before.json" "$tmp/after.json"
expect_status "compare --json" 0
cp "$tmp/out" "$tmp/c.json"
json_check "JSON: schema vdsokit-compare" "$tmp/c.json" '.schema == "vdsokit-compare" and .schema_version == 1'
json_check "JSON: improvement 2057/675" "$tmp/c.json" \
	'.rows[] | select(.label == "clock_gettime(MONOTONIC)") | .before_ns == 2057 and .after_ns == 675 and ((.improvement - 2057/675) | fabs) < 1e-4'
json_check "JSON: a missing side is null" "$tmp/c.json" \
	'[.rows[] | select(.label == "only_before" or .label == "only_after") | .improvement] == [null, null]'

# One file: the syscall of that run against libvdsokit.
run compare "$tmp/before.json"
expect_status "compare with one file" 0
check "one file: syscall vs vdsokit columns" grep -Eq '^function/clock +syscall \(ns/call\) +vdsokit \(ns/call\) +improvement$' "$tmp/out"
check "one file: 2040 vs 2057 is 0.99x" grep -Eq '^clock_gettime\(MONOTONIC\) +2040 +2057 +0\.99×$' "$tmp/out"
check "one file: no syscall figure, no ratio" grep -Eq '^thread_pointer +- +580 +-$' "$tmp/out"
run compare --path libc "$tmp/before.json" "$tmp/after.json"
check "--path libc: no libc figures in these files" grep -Eq '^clock_gettime\(MONOTONIC\) +- +- +-$' "$tmp/out"

# A real run compares with itself as 1.00x everywhere it has figures.
run bench --time 0.2 --functions clock_gettime,time --clocks REALTIME,MONOTONIC --json
cp "$tmp/out" "$tmp/real.json"
run compare "$tmp/real.json" "$tmp/real.json"
check "a real run against itself: 1.00x on every row" sh -c "tail -n +6 '$tmp/out' | awk 'NF && \$NF != \"1.00×\" { exit 1 }'"
run compare "$tmp/real.json"
expect_status "one real file" 0

# The chart.
run compare "$tmp/before.json" "$tmp/after.json" --svg "$tmp/c.svg"
expect_status "compare --svg" 0
if have rsvg-convert; then
	if rsvg-convert -o "$tmp/c.png" "$tmp/c.svg" 2>"$tmp/rsvg.err" && [ "$(wc -c <"$tmp/c.png")" -gt 5000 ]; then
		ok "the compare chart renders with rsvg-convert ($(wc -c <"$tmp/c.png")-byte PNG)"
	else
		not_ok "the compare chart does not render"
		diag <"$tmp/rsvg.err"
	fi
else
	skip "rsvg-convert not installed"
fi
check "the chart labels both series" sh -c "grep -q '>before</text>' '$tmp/c.svg' && grep -q '>after</text>' '$tmp/c.svg'"
check "the chart marks a missing figure n/a" grep -q '>n/a</text>' "$tmp/c.svg"

# Unusable input: exit 2, the file and the reason on stderr.
run compare "$tmp/missing.json"
expect_error "a missing file" 2 "^vdsokit compare: $tmp/missing.json: No such file or directory$"
printf '{ "schema": "vdsokit-bench", "results": [ 1, 2,, ] }' >"$tmp/broken.json"
run compare "$tmp/broken.json"
expect_error "broken JSON" 2 "^vdsokit compare: $tmp/broken.json: not valid JSON: line 1: "
printf '{ "schema": "vdsokit-info", "schema_version": 1 }' >"$tmp/info.json"
run compare "$tmp/info.json"
expect_error "another kind of vdsokit JSON" 2 "not the output of .vdsokit bench --json. \\(schema \"vdsokit-info\"\\)"
printf '{ "schema": "vdsokit-bench", "schema_version": 99, "results": [] }' >"$tmp/future.json"
run compare "$tmp/future.json"
expect_error "a future schema version" 2 "schema_version 99 is not one this vdsokit reads"
printf '{ "schema": "vdsokit-bench", "schema_version": 1 }' >"$tmp/noresults.json"
run compare "$tmp/noresults.json"
expect_error "no results array" 2 "no \"results\" array"
run compare "$tmp/before.json" "$tmp/missing.json"
expect_error "AFTER missing" 2 "^vdsokit compare: $tmp/missing.json: No such file"
run compare --markdown --json "$tmp/before.json"
expect_error "--markdown with --json" 2 "exclusive"

done_testing
