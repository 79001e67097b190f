#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit metrics: the Prometheus text exposition format that node_exporter's
# textfile collector publishes.  What promtool accepts, what a real
# prometheus-node-exporter serves from it, -o written whole, usage errors,
# and no invented figure: a call that a seccomp filter refuses has no
# duration, but vdsokit_call_failed 1 with its error; a clocksource that
# cannot be read has no info sample.
. "$(dirname "$0")/lib.sh"

sandbox=$build/tests/tools/sandbox-run
t=0.05

# --- the format ------------------------------------------------------------
run metrics --time $t
expect_status "metrics --time $t" 0
cp "$tmp/out" "$tmp/host.prom"

# families WHAT FILE: every sample's family has HELP and TYPE before it, every
# name starts with vdsokit_, every value is a number, no family is split.
families() {
	if awk '
		/^# HELP / { help[$3] = 1; next }
		/^# TYPE / { if ($3 in typed) { print "family twice: " $3; bad = 1 }
			     typed[$3] = 1; current = $3; next }
		/^#/ || /^$/ { next }
		{
			name = $1; sub(/\{.*/, "", name)
			if (name !~ /^vdsokit_[a-z_]+$/) { print "name: " $0; bad = 1 }
			if (name != current || !(name in help)) { print "no HELP/TYPE before: " $0; bad = 1 }
			if ($NF !~ /^-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$/) { print "value: " $0; bad = 1 }
			samples++
		}
		END { if (samples < 20) { print "only " samples " samples"; bad = 1 }; exit bad }
	' "$2" >"$tmp/families.out"; then
		ok "$1"
	else
		not_ok "$1"
		head -5 "$tmp/families.out" | diag
	fi
}
families "every sample under its HELP and TYPE, vdsokit_ names, numeric values" "$tmp/host.prom"

# has WHAT FILE REGEX: a line of FILE matches.
has() {
	if grep -Eq -- "$3" "$2"; then ok "$1"; else not_ok "$1 (no line matching /$3/)"; grep -v '^#' "$2" | head -3 | diag; fi
}
# promtool_ok WHAT FILE: promtool check metrics finds no problem in FILE, which
# has samples (promtool accepts an empty file).
promtool_ok() {
	if ! have promtool; then
		skip "$1: promtool not installed (Debian package prometheus)"
	elif grep -q '^vdsokit_' "$2" && promtool check metrics <"$2" >"$tmp/promtool.out" 2>&1; then
		ok "$1"
	else
		not_ok "$1"
		{ diag <"$tmp/promtool.out"; grep -c '^vdsokit_' "$2"; } | diag
	fi
}
sysfs_cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
if [ -n "$sysfs_cs" ]; then
	has "clocksource $sysfs_cs as a label of vdsokit_clocksource_info" "$tmp/host.prom" \
		"^vdsokit_clocksource_info\\{clocksource=\"$sysfs_cs\"(,available=\"[^\"]*\")?\\} 1\$"
else
	skip "the clocksource cannot be read here"
fi
has "kernel release and machine of uname" "$tmp/host.prom" \
	"^vdsokit_host_info\\{kernel_release=\"$(uname -r)\",machine=\"$(uname -m)\"\\} 1\$"
has "clock_gettime(MONOTONIC) through libvdsokit, in seconds (below a millisecond)" "$tmp/host.prom" \
	'^vdsokit_call_duration_seconds\{call="clock_gettime\(MONOTONIC\)",function="clock_gettime",clock="MONOTONIC",path="vdsokit"\} [0-9.]+e-0[4-9]$'
has "and through the syscall" "$tmp/host.prom" \
	'^vdsokit_call_duration_seconds\{[^}]*clock="MONOTONIC",path="syscall"\} [0-9.]+e-0[4-9]$'
has "its route: in user space" "$tmp/host.prom" \
	'^vdsokit_route_user_space\{function="clock_gettime",clock="MONOTONIC",route="vdso"\} 1$'
has "the CPU-time clock's route: a syscall" "$tmp/host.prom" \
	'^vdsokit_route_user_space\{function="clock_gettime",clock="PROCESS_CPUTIME_ID",route="syscall"\} 0$'
has "findings by severity, slow 0 on this host" "$tmp/host.prom" '^vdsokit_doctor_findings\{severity="slow"\} 0$'
has "one series per finding id, with its severity" "$tmp/host.prom" \
	'^vdsokit_doctor_finding\{id="cputime-syscall",severity="info"\} 1$'
if grep -q '^vdsokit_call_failed{.*} 1$' "$tmp/host.prom" ||
   ! grep -q '^vdsokit_call_failed{.*clock="MONOTONIC",path="vdsokit"} 0$' "$tmp/host.prom"; then
	not_ok "no call fails on this host"
	grep '^vdsokit_call_failed{.*} 1$' "$tmp/host.prom" | diag
else
	ok "no call fails on this host"
fi

# --- promtool --------------------------------------------------------------
promtool_ok "promtool check metrics: no problem found" "$tmp/host.prom"
if have promtool; then
	# The checker can fail: a sample without its TYPE and HELP.
	printf 'vdsokit_x_seconds{a="1"} 1\nvdsokit_x_seconds{a="1"} 2\n' >"$tmp/bad.prom"
	if promtool check metrics <"$tmp/bad.prom" >/dev/null 2>&1; then
		not_ok "promtool check metrics rejects a malformed file"
	else
		ok "promtool check metrics rejects a malformed file"
	fi
else
	skip "promtool not installed (Debian package prometheus)"
fi

# --- -o FILE: written whole, replaced only once complete ------------------------
mkdir "$tmp/textfile"
echo "old" >"$tmp/textfile/vdsokit.prom"
run metrics --time $t -o "$tmp/textfile/vdsokit.prom"
if [ "$status" = 0 ] && [ ! -s "$tmp/out" ] && grep -q '^vdsokit_last_run_timestamp_seconds [0-9]' "$tmp/textfile/vdsokit.prom" &&
   [ "$(ls -A "$tmp/textfile")" = vdsokit.prom ]; then
	ok "-o FILE: replaced, nothing on stdout, no temporary left"
else
	not_ok "-o FILE (exit $status)"
	{ ls -A "$tmp/textfile"; head -3 "$tmp/err"; } | diag
fi
families "-o FILE: the same format" "$tmp/textfile/vdsokit.prom"
run metrics --time $t -o "$tmp/missing/vdsokit.prom"
expect_error "-o into a directory that does not exist" 2 "metrics: .*missing/vdsokit.prom: No such file or directory"

# --- usage errors ------------------------------------------------------------
run metrics --time soon
expect_error "--time soon" 2 "metrics: .*--time"
run metrics extra
expect_error "an extra argument" 2 "metrics: unexpected argument 'extra'"
run metrics --json
expect_error "an option it does not have" 2 "metrics: unknown option '--json'"

# --- no invented figure --------------------------------------------------------
if [ "$(id -u)" = 0 ] && [ -x "$sandbox" ] && "$sandbox" --errno EPERM getrandom -- true 2>/dev/null; then
	"$sandbox" --errno EPERM getrandom -- "$vdsokit" metrics --time $t >"$tmp/refused.prom" 2>"$tmp/err"
	status=$?
	expect_status "EPERM:getrandom: metrics still writes" 0
	if grep -q '^vdsokit_call_duration_seconds{call="getrandom' "$tmp/refused.prom" ||
	   ! grep -q '^vdsokit_call_duration_seconds{call="time"' "$tmp/refused.prom"; then
		not_ok "EPERM:getrandom: no duration for a refused call"
		grep '^vdsokit_call_duration_seconds{call="getrandom' "$tmp/refused.prom" | diag
	else
		ok "EPERM:getrandom: no duration for a refused call"
	fi
	has "EPERM:getrandom: vdsokit_call_failed 1 with the error, both paths" "$tmp/refused.prom" \
		'^vdsokit_call_failed\{call="getrandom\(16\)",function="getrandom",path="syscall",error="EPERM"\} 1$'
	has "EPERM:getrandom: the other calls still timed" "$tmp/refused.prom" \
		'^vdsokit_call_duration_seconds\{call="clock_gettime\(MONOTONIC\)".*path="vdsokit"\} '
	has "EPERM:getrandom: doctor's calls-fail finding, slow" "$tmp/refused.prom" \
		'^vdsokit_doctor_finding\{id="calls-fail",severity="slow"\} 1$'
	promtool_ok "EPERM:getrandom: promtool check metrics" "$tmp/refused.prom"
else
	for i in 1 2 3 4 5 6; do skip "needs root and $sandbox (make tests)"; done
fi

# A clocksource that cannot be read (sysfs masked) has no info sample, and
# one that can is a label whatever its bytes: a name with a quote and a
# backslash, bind-mounted over sysfs's file.
if [ "$(id -u)" = 0 ] && have unshare && unshare -m true 2>/dev/null && [ -n "$sysfs_cs" ]; then
	unshare -m sh -c 'mount -t tmpfs none /sys && exec "$@"' sh "$vdsokit" metrics --time $t \
		>"$tmp/nosys.prom" 2>"$tmp/err"
	status=$?
	if [ "$status" = 0 ] && ! grep -q '^vdsokit_clocksource_info' "$tmp/nosys.prom" &&
	   grep -q '^vdsokit_doctor_finding{id="unreadable",severity="warning"} 1$' "$tmp/nosys.prom"; then
		ok "/sys masked: no clocksource sample, doctor's unreadable finding instead"
	else
		not_ok "/sys masked: no clocksource sample, doctor's unreadable finding instead (exit $status)"
		grep -E 'clocksource|unreadable' "$tmp/nosys.prom" | diag
	fi
	# with_clocksource NAME OUT: metrics with sysfs's current clocksource reading NAME.
	with_clocksource() {
		printf '%s\n' "$1" >"$tmp/current_clocksource"
		unshare -m sh -c 'mount --bind "$1" /sys/devices/system/clocksource/clocksource0/current_clocksource &&
			shift && exec "$@"' sh "$tmp/current_clocksource" "$vdsokit" metrics --time $t \
			>"$2" 2>"$tmp/err"
		status=$?
	}
	with_clocksource hpet "$tmp/hpet.prom"
	has "clocksource hpet read from sysfs, as the label (exit $status)" "$tmp/hpet.prom" \
		'^vdsokit_clocksource_info\{clocksource="hpet",'
	with_clocksource 'hp"e\t' "$tmp/quoted.prom"
	has "a clocksource name with \" and \\, escaped (exit $status)" "$tmp/quoted.prom" \
		'^vdsokit_clocksource_info\{clocksource="hp\\"e\\\\t",'
	promtool_ok "escaped label: promtool check metrics" "$tmp/quoted.prom"
else
	for i in 1 2 3 4; do skip "needs root, unshare -m and a readable clocksource"; done
fi

# --- the alert rules of docs/metrics.md ------------------------------------------
# The YAML block after the alert-rules marker, checked, then run by promtool
# on two hosts: this one as measured (no alert), and one whose clocksource
# reads hpet (from sysfs, above) with the figures such a host measures:
# the library's clock_gettime(MONOTONIC) as slow as the syscall, doctor's
# clocksource-fallback finding slow.
awk '/^<!-- alert-rules:/ { armed = 1; next } armed && /^```yaml/ { on = 1; next }
     on && /^```/ { exit } on' "$top/docs/metrics.md" >"$tmp/rules.yml"
# as_series INSTANCE FILE: each sample as a promtool input series, 30 one-minute steps.
as_series() {
	awk -v inst="$1" '!/^#/ && NF {
		v = $NF; s = $0; sub(/ [^ ]*$/, "", s)
		if (s ~ /\}$/) sub(/\}$/, ",instance=\"" inst "\"}", s); else s = s "{instance=\"" inst "\"}"
		gsub(/\047/, "\047\047", s)
		if (s ~ /^vdsokit_last_run_timestamp_seconds/) v = 0   # the tests start at time 0
		printf "      - series: \047%s\047\n        values: \047%sx30\047\n", s, v
	}' "$2"
}
if ! have promtool; then
	skip "promtool not installed (Debian package prometheus)"
	skip "promtool not installed (Debian package prometheus)"
elif [ ! -s "$tmp/hpet.prom" ]; then
	check "alert rules of docs/metrics.md: promtool check rules" promtool check rules "$tmp/rules.yml"
	skip "no metrics with the clocksource faked to hpet (needs root and unshare -m; see above)"
else
	check "alert rules of docs/metrics.md: promtool check rules" promtool check rules "$tmp/rules.yml"
	sys=$(awk '/^vdsokit_call_duration_seconds\{.*clock="MONOTONIC",path="syscall"\}/ { print $NF }' "$tmp/hpet.prom")
	sed -e "s/^\(vdsokit_call_duration_seconds{[^}]*clock=\"MONOTONIC\",path=\"vdsokit\"}\) .*/\1 $sys/" \
	    -e 's/^vdsokit_doctor_findings{severity="slow"} 0$/vdsokit_doctor_findings{severity="slow"} 1/' \
	    "$tmp/hpet.prom" >"$tmp/slow.prom"
	{
		printf 'rule_files: [rules.yml]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n'
		as_series healthy "$tmp/host.prom"
		as_series hpet "$tmp/slow.prom"
		cat <<'EOF'
    promql_expr_test:
      - expr: count by (alertname, instance) (ALERTS{alertstate="firing"})
        eval_time: 20m
        exp_samples:
          - labels: '{alertname="ClocksourceWithoutVdsoRead",instance="hpet"}'
            value: 1
          - labels: '{alertname="ClockCallsOffFastPath",instance="hpet"}'
            value: 1
          - labels: '{alertname="VdsokitDoctorSlow",instance="hpet"}'
            value: 1
EOF
	} >"$tmp/rules-test.yml"
	if (cd "$tmp" && promtool test rules rules-test.yml) >"$tmp/rules-test.out" 2>&1; then
		ok "alert rules: the hpet host fires all three, this host none (promtool test rules)"
	else
		not_ok "alert rules: the hpet host fires all three, this host none (promtool test rules)"
		head -30 "$tmp/rules-test.out" | diag
	fi
fi

# --- a real node_exporter serves them ----------------------------------------
exporter=$(command -v prometheus-node-exporter || command -v node_exporter)
if [ -z "$exporter" ] || ! have python3; then
	skip "prometheus-node-exporter or python3 not installed"
else
	# Started, scraped and stopped by one helper, on a free port of 127.0.0.1.
	python3 "$top/tests/cli/textfile_scrape.py" "$exporter" "$tmp/textfile" >"$tmp/scraped" \
		2>"$tmp/scrape.err"
	scrape=$?
	if [ "$scrape" = 0 ] && grep -q '^node_textfile_scrape_error 0' "$tmp/scraped" &&
	   grep -q '^vdsokit_call_duration_seconds{.*clock="MONOTONIC".*path="vdsokit"} ' "$tmp/scraped" &&
	   grep -q '^vdsokit_doctor_findings{severity="slow"} 0' "$tmp/scraped" &&
	   grep -q '^# TYPE vdsokit_route_user_space gauge' "$tmp/scraped"; then
		ok "prometheus-node-exporter serves them from the textfile directory ($(grep -c '^vdsokit_' "$tmp/scraped") samples)"
	else
		not_ok "prometheus-node-exporter serves them (scrape exit $scrape)"
		{ cat "$tmp/scrape.err"; grep -E '^node_textfile' "$tmp/scraped"; } | diag
	fi
fi

# A file that cannot be written is an error before the measuring: --time 3
# ended after 3 s of measuring, for nothing.
start=$(date +%s)
run metrics --time 3 -o /nonexistent-dir/x.prom
took=$(( $(date +%s) - start ))
if [ "$took" -lt 2 ]; then
	expect_error "metrics -o in a missing directory: refused at once (${took} s)" 2 \
		"^vdsokit metrics: /nonexistent-dir/x.prom: No such file or directory$"
else
	not_ok "metrics -o in a missing directory: refused only after measuring (${took} s)"
fi

done_testing
