#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit where users run it: /proc or /sys masked (a container), a seccomp
# filter refusing one syscall (EPERM, ENOSYS, or killing), non-root.  Each
# command must exit sensibly, never crash, write JSON that parses, print no
# invented value, and give a verdict that matches the environment.
. "$(dirname "$0")/lib.sh"

sandbox=$build/tests/tools/sandbox-run
if [ "$(id -u)" != 0 ] || ! have unshare || ! have jq; then
	echo "1..0 # SKIP needs root, unshare(1) and jq"
	exit 0
fi
if [ ! -x "$sandbox" ]; then
	echo "1..0 # SKIP $sandbox not built (make tests)"
	exit 0
fi

cat >"$tmp/mask" <<'EOF'
# mask-proc PROC SYS COMMAND...: an empty tmpfs over /proc and/or /sys.
p=$1 s=$2
shift 2
[ "$p" = 1 ] && { mount -t tmpfs none /proc || exit 90; }
[ "$s" = 1 ] && { mount -t tmpfs none /sys || exit 90; }
exec "$@"
EOF

# in_env ENV ARGS...: vdsokit ARGS under ENV, output in $tmp/out, $tmp/err, $status.
in_env() {
	env=$1
	shift
	case $env in
	proc) set -- unshare -m sh "$tmp/mask" 1 0 "$vdsokit" "$@" ;;
	sys) set -- unshare -m sh "$tmp/mask" 0 1 "$vdsokit" "$@" ;;
	procsys) set -- unshare -m sh "$tmp/mask" 1 1 "$vdsokit" "$@" ;;
	nobody) set -- setpriv --reuid=nobody --regid=nogroup --clear-groups "$vdsokit" "$@" ;;
	kill:*) set -- "$sandbox" --kill "${env#kill:}" -- "$vdsokit" "$@" ;;
	*:*) set -- "$sandbox" --errno "${env%%:*}" "${env#*:}" -- "$vdsokit" "$@" ;;
	esac
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
}

# Garbage seen in the issue: uninitialised bytes, sentinels, defaults.
garbage='1431655765|-1431655766|9223372036854775|0 KiB|clocksource unknown is read'

# sane WHAT: no crash, a sensible exit status, no garbage in the output.
sane() {
	case $status in
	0|1) ;;
	*) not_ok "$1: exit $status"; head -3 "$tmp/err" | diag; return 1 ;;
	esac
	if grep -Eq -- "$garbage" "$tmp/out"; then
		not_ok "$1: invented or uninitialised value"
		grep -E -- "$garbage" "$tmp/out" | head -3 | diag
		return 1
	fi
	return 0
}

# JSON that parses, and no -1/0 sentinel where null is due.
nulls='[.. | objects | (.seccomp_mode?, .seccomp_filters?, .size?, .result?) ] as $x |
       (.environment.seccomp_mode // 2) != -1 and (.vdso.size // 1) != 0 and
       (.environment.process_name // "x") != "" and (.mappings // [1]) != []'

run_all() {
	env=$1
	for cmd in "report" "info" "doctor" "verify --time 0.1" "bench --time 0.2" "abi"; do
		# shellcheck disable=SC2086
		in_env "$env" $cmd
		text_status=$status
		sane "$env: $cmd" || continue
		# shellcheck disable=SC2086
		in_env "$env" $cmd --json
		if ! sane "$env: $cmd --json"; then
			continue
		elif ! jq -e "$nulls" "$tmp/out" >/dev/null 2>&1; then
			not_ok "$env: $cmd --json parses, null for unknowns"
			head -c 300 "$tmp/out" | diag
		else
			ok "$env: $cmd (exit $text_status), --json parses, no sentinel"
		fi
	done
}

# --- /proc and /sys masked -------------------------------------------------
for env in proc sys procsys; do
	run_all "$env"
done
in_env procsys doctor
if grep -q "/proc/self/status: No such file or directory" "$tmp/out" &&
   grep -q "could not be read" "$tmp/out"; then
	ok "procsys: doctor says what it could not read, and why"
else
	not_ok "procsys: doctor says what it could not read, and why"
	tail -5 "$tmp/out" | diag
fi
in_env procsys doctor --json
json_check "procsys: doctor --json: seccomp, offsets, size null; verdict not fast" "$tmp/out" \
	'.environment.seccomp_mode == null and .environment.monotonic_offset_s == null and
	 .vdso.size == null and .verdict.fast != true and
	 (.host.unknown.seccomp_mode | test("/proc/self/status"))'
# A /proc as a kernel built without CONFIG_SECCOMP and CONFIG_TIME_NS shows
# it (the m68k-vdso guest's): a status file without a Seccomp line, and
# namespace files without 'time'.  Those are facts, not unreadable files.
cat >"$tmp/noconfig" <<'EOF2'
mount -t tmpfs none /proc || exit 90
mkdir -p /proc/self/ns
printf 'Name:\tvdsokit\nState:\tR (running)\n' >/proc/self/status
ln -s 'mnt:[4026531841]' /proc/self/ns/mnt
exec "$@"
EOF2
unshare -m sh "$tmp/noconfig" "$vdsokit" doctor --json >"$tmp/out" 2>"$tmp/err"
json_check "a kernel without seccomp and time namespaces: doctor --json reads mode 0 and no offsets" \
	"$tmp/out" '.environment.seccomp_mode == 0 and .environment.monotonic_offset_s == 0 and
	 (.host.unknown.seccomp_mode == null) and
	 ([.findings[] | select(.id == "unreadable") | .evidence[] |
	   select(test("seccomp|time namespace"))] | length == 0)'
in_env proc info --json
json_check "proc: info --json: mappings null, the reason in host.unknown" "$tmp/out" \
	'.mappings == null and (.host.unknown.mappings | test("/proc/self/maps"))'
in_env sys report --no-bench
if grep -q "clocksource   unknown (/sys/" "$tmp/out"; then
	ok "sys: report says why the clocksource is unknown"
else
	not_ok "sys: report says why the clocksource is unknown"
	grep clocksource "$tmp/out" | diag
fi

# --- seccomp refusing one reference syscall -------------------------------
for env in EPERM:clock_gettime EPERM:gettimeofday EPERM:time EPERM:getrandom EPERM:getcpu \
	   ENOSYS:clock_gettime; do
	run_all "$env"
done

for env in EPERM:clock_gettime EPERM:gettimeofday EPERM:getrandom EPERM:getcpu ENOSYS:clock_gettime; do
	sys=${env#*:}
	in_env "$env" verify --time 0.1 --json
	json_check "$env: verify fails nothing and skips with the reason" "$tmp/out" \
		"([.checks[] | select(.status == \"fail\")] | length) == 0 and
		 any(.checks[]; .status == \"skip\" and (.detail | test(\"$sys syscall.*${env%%:*}\")))"
done

# Refused only for some arguments: a call verify's first probe
# (clock_gettime(REALTIME), getrandom with flags 0) does not make, first
# made inside a measurement loop.  Its result is the reference's: a skip
# with the syscall's name, never the readings around it judged.
# monotonic: clock_gettime(MONOTONIC); time: the REALTIME_COARSE lower
# bound; getrandom (syscall): GRND_NONBLOCK.
for case in "clock_gettime@0=1:monotonic MONOTONIC:clock_gettime(MONOTONIC)" \
	    "clock_gettime@0=5:time (vDSO):time (library)" \
	    "getrandom@2=1:getrandom (syscall):getrandom (syscall)"; do
	filter=${case%%:*} rest=${case#*:}
	first=${rest%%:*} second=${rest#*:}
	sys=${filter%%@*}
	in_env "EPERM:$filter" verify --time 0.2 --json
	json_check "EPERM:$filter: verify fails nothing, '$first' and '$second' name the refused $sys" \
		"$tmp/out" "([.checks[] | select(.status == \"fail\") | .name]) == [] and
		 all(.checks[] | select(.group != \"timens\" and (.name == \"$first\" or .name == \"$second\"));
		     .detail | test(\"$sys syscall.*refused here: EPERM\"))"
done

in_env EPERM:getrandom bench --time 0.2 --functions getrandom --json
json_check "EPERM:getrandom: bench times no refused call, says EPERM" "$tmp/out" \
	'all(.results[]; .speedup == null and .reason == "the call fails here: EPERM" and
	     all(.paths[]; .median_ns == null and .error == "EPERM"))'
in_env EPERM:getrandom report --json
json_check "EPERM:getrandom: report has no figure for getrandom" "$tmp/out" \
	'any(.bench[]; .label == "getrandom(16)" and .vdsokit_ns == null and .speedup == null and
	     .vdsokit_error == "EPERM")'
in_env EPERM:getrandom doctor
if [ "$status" = 1 ] && grep -q "calls that fail here: .*getrandom (EPERM)" "$tmp/out" &&
   grep -q "Seccomp: 2 (filter)" "$tmp/out" && ! grep -q "every call is on its fast path" "$tmp/out"; then
	ok "EPERM:getrandom: doctor names the failing call and the seccomp filter (exit 1)"
else
	not_ok "EPERM:getrandom: doctor names the failing call and the seccomp filter"
	{ echo "exit $status"; tail -6 "$tmp/out"; } | diag
fi

# madvise refused: getrandom's states need none (their growth has no gate
# page since 0.5.0), so report still shows getrandom on the vDSO and doctor
# finds nothing missing.  (A filter that refuses mmap or rt_sigprocmask is
# tests/lib/random-refused.c's: the tool itself cannot start without mmap.)
# Only where the vDSO has getrandom.
"$vdsokit" report --json --no-bench >"$tmp/out" 2>/dev/null
if ! jq -e '[.. | objects | select(.function? == "getrandom" and .route? == "vdso")] | length > 0' \
	"$tmp/out" >/dev/null 2>&1; then
	skip "EPERM:madvise: no vDSO getrandom here"
	skip "EPERM:madvise: no vDSO getrandom here"
else
	in_env EPERM:madvise report --no-bench
	if [ "$status" = 0 ] && grep -Eq "^  getrandom +vDSO \(user space\)" "$tmp/out"; then
		ok "EPERM:madvise: report shows getrandom on the vDSO: its states need no madvise"
	else
		not_ok "EPERM:madvise: report shows getrandom on the vDSO: its states need no madvise"
		{ echo "exit $status"; grep getrandom "$tmp/out"; } | diag
	fi
	in_env EPERM:madvise doctor
	if ! grep -q "take the syscall: getrandom\|no-state-memory" "$tmp/out"; then
		ok "EPERM:madvise: doctor finds getrandom served (exit $status)"
	else
		not_ok "EPERM:madvise: doctor finds getrandom served"
		{ echo "exit $status"; grep -i -A2 "getrandom" "$tmp/out" | head -8; } | diag
	fi
fi

# --- a refused reference is a skip with the reason, never a verdict ---------
# Under ASan abi's bad-pointer cases cannot run (the runtime takes their
# SIGSEGV), which abi reports with exit 1: the refused cases are still judged.
abi_ok=0
if sanitized address; then abi_ok="0 1"; fi
abi_passed() { case " $abi_ok " in *" $1 "*) return 0 ;; esac; return 1; }
for env in EPERM:time ENOSYS:time EPERM:gettimeofday ENOSYS:gettimeofday EPERM:getcpu \
	   ENOSYS:getcpu EPERM:getrandom ENOSYS:getrandom EPERM:clock_getres ENOSYS:clock_getres; do
	sys=${env#*:}
	in_env "$env" abi --json
	if abi_passed "$status"; then
		json_check "$env: abi skips the cases whose syscall is refused, names it (exit 0)" \
			"$tmp/out" "(.summary.refused > 0) and
			 all(.cases[] | select(.function == \"$sys\"); .syscall.outcome == \"refused\" and
			     (.syscall.reason | test(\"the $sys syscall.*${env%%:*}\")) and
			     .library_differs == false)"
	else
		not_ok "$env: abi exit $status, want 0 (a refused reference is no failure)"
		grep -i "where the syscall returns" "$tmp/err" | head -3 | diag
	fi
done
in_env EPERM:time abi
if grep -q "time cases skipped: the time syscall, the reference, is refused here: EPERM" "$tmp/out"; then
	ok "EPERM:time: abi's text says which cases it skipped and why"
else
	not_ok "EPERM:time: abi's text says which cases it skipped and why"
	tail -4 "$tmp/out" | diag
fi

# A refused kill() must not leave abi waiting for a child that never ends.
set -- timeout 60 "$sandbox" --errno EPERM kill -- "$vdsokit" abi
"$@" >"$tmp/out" 2>"$tmp/err"
status=$?
if abi_passed "$status" && grep -q "kill: EPERM" "$tmp/err"; then
	ok "EPERM:kill: abi finishes and says it could not end its child"
else
	not_ok "EPERM:kill: abi exit $status (124: it hung)"
	tail -3 "$tmp/err" | diag
fi

# Names that cannot be read prove nothing: the offsets decide.
in_env EPERM:readlink,readlinkat verify --time 0.1 --json
json_check "EPERM:readlink: verify fails nothing in the time namespace and runs the offset checks" \
	"$tmp/out" '([.checks[] | select(.group == "timens" and .status == "fail")] | length) == 0 and
	 (([.checks[] | select(.name == "time namespace" and (.detail | test("readlink")))] | length) == 0 or
	  ([.checks[] | select(.group == "timens" and (.name | test("^offset")))] | length) == 4)'

# A failed measurement is no figure, and no placeholder in a sentence.
in_env EPERM:clock_gettime doctor
if grep -Eq -- "(syscall|vDSO) - per call|is - cheaper" "$tmp/out" ||
   ! grep -q "no comparison: the clock_gettime syscall, the reference, is refused here: EPERM" "$tmp/out"; then
	not_ok "EPERM:clock_gettime: doctor gives no figure for the refused syscall, and says why"
	grep -i "measured" "$tmp/out" | diag
else
	ok "EPERM:clock_gettime: doctor gives no figure for the refused syscall, and says why"
fi

# uname refused: the kernel is unknown with the reason, never an empty name.
in_env EPERM:uname report --no-bench
if grep -q "kernel        Linux unknown (uname: Operation not permitted)" "$tmp/out" &&
   ! grep -Eq "Linux *$|architecture +\(" "$tmp/out"; then
	ok "EPERM:uname: report says the kernel is unknown and why"
else
	not_ok "EPERM:uname: report says the kernel is unknown and why"
	grep -E "kernel|architecture" "$tmp/out" | diag
fi
for cmd in doctor info verify abi; do
	in_env EPERM:uname $cmd --json $([ $cmd = verify ] && echo --time 0.1)
	json_check "EPERM:uname: $cmd --json: kernel_release and machine null, the reason given" "$tmp/out" \
		'.host.kernel_release == null and .host.machine == null and
		 (.host.unknown.kernel_release | test("uname"))'
done
in_env EPERM:uname doctor
if head -1 "$tmp/out" | grep -q "kernel unknown: uname: Operation not permitted"; then
	ok "EPERM:uname: doctor's header says the kernel is unknown"
else
	not_ok "EPERM:uname: doctor's header says the kernel is unknown"
	head -1 "$tmp/out" | diag
fi
in_env EPERM:uname metrics
if grep -q 'vdsokit_host_info{kernel_release="unknown",machine="unknown"} 1' "$tmp/out"; then
	ok "EPERM:uname: metrics label the unknown kernel 'unknown'"
else
	not_ok "EPERM:uname: metrics label the unknown kernel 'unknown'"
	grep host_info "$tmp/out" | diag
fi

# A futex the C library cannot wait with (refused here; on a kernel without
# the 32-bit time syscalls, glibc's i386 futex): verify asks first, skips
# its threaded checks with the reason, and never aborts in glibc.
for env in ENOSYS:futex EPERM:futex; do
	in_env "$env" verify --time 0.2 --json
	if [ "$status" = 134 ]; then
		not_ok "$env: verify aborted in the C library's futex wait (exit 134)"
		tail -1 "$tmp/err" | diag
	else
		json_check "$env: verify skips its threaded checks, names the futex syscall" "$tmp/out" \
			"[.checks[] | select(.name | test(\"across threads\"))] as \$t | (\$t | length) == 2 and
			 all(\$t[]; .status == \"skip\" and (.detail | test(\"futex syscall .*${env%%:*}\")))"
	fi
done

# As root, an EPERM from unshare is a refusal, not a missing capability.
in_env EPERM:unshare verify --time 0.1 --json
json_check "EPERM:unshare: verify's time namespace skip names the refusal, not CAP_SYS_ADMIN" "$tmp/out" \
	'any(.checks[]; .name == "time namespace" and .status == "skip" and
	     (.detail | test("refused")) and (.detail | test("needs CAP_SYS_ADMIN") | not))'

# --- killing: a refused syscall ends the process; the vDSO paths need none --
if sanitized any; then
	skip "kill:clock_gettime: info: a sanitizer's runtime makes the clock_gettime syscall itself"
else
	in_env kill:clock_gettime info --json
	json_check "kill:clock_gettime: info needs no clock_gettime syscall" "$tmp/out" '.schema == "vdsokit-info"'
fi
# The reference syscalls killed: tests/cli-sandbox-children.t.

# --- non-root -------------------------------------------------------------
if have setpriv && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
	run_all nobody
else
	skip "non-root: setpriv cannot switch to nobody"
fi

# Without privilege, under a filter refusing unshare, on a kernel that grants
# user namespaces to anyone: the filter is the cause, not a missing capability.
as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
if have setpriv && $as_nobody unshare -U -T true 2>/dev/null; then
	$as_nobody "$sandbox" --errno EPERM unshare -- "$vdsokit" verify --time 0.2 >"$tmp/out" 2>"$tmp/err"
	if grep "time namespace" "$tmp/out" | grep -q "a seccomp filter or a security module refuses it" &&
	   ! grep -q "needs CAP_SYS_ADMIN" "$tmp/out"; then
		ok "nobody, EPERM:unshare: verify's time-namespace skip names the filter, not a capability"
	else
		not_ok "nobody, EPERM:unshare: verify's time-namespace skip names the filter, not a capability"
		grep "time namespace" "$tmp/out" | diag
	fi
else
	skip "nobody, EPERM:unshare: this kernel does not grant nobody a user and time namespace"
fi

done_testing
