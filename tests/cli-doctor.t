#!/bin/sh
# SPDX-License-Identifier: MIT
# vdsokit doctor: a healthy host (exit 0, clocksource named and measured),
# valgrind (no vDSO, recognised, exit 1), qemu-user on aarch64 (no vDSO,
# recognised, exit 1), and the expectation matcher tests/doctor-expect that
# the QEMU matrix applies to its guests, run here on samples of doctor's
# JSON from those guests (tests/doctor-samples: amd64 plain, clocksource=hpet,
# vdso=0, mips64el malta, and the m68k-vdso guest as doctor described it
# before and after it learnt that a vDSO entry can exist and go unused;
# this host and the arm64-6.12 guest before and after getcpu from the rseq
# area counted as a fast path) in both directions.
. "$(dirname "$0")/lib.sh"

if ! command -v jq >/dev/null; then
	echo "1..0 # SKIP jq is not installed"
	exit 0
fi
expect_tool=$top/tests/doctor-expect
samples=$top/tests/doctor-samples

# expect_doctor DESCRIPTION CASE FILE: doctor-expect accepts FILE for CASE.
expect_doctor() {
	if "$expect_tool" "$2" <"$3" >"$tmp/expect.out" 2>&1; then
		ok "$1"
	else
		not_ok "$1"
		grep -v '^#   ok' "$tmp/expect.out" | sed 's/^# *//' | diag
	fi
}
# reject_doctor DESCRIPTION CASE FILE: doctor-expect says no (exit 1).
reject_doctor() {
	"$expect_tool" "$2" <"$3" >"$tmp/expect.out" 2>&1
	st=$?
	if [ $st -eq 1 ]; then ok "$1"; else not_ok "$1 (exit $st, want 1)"; fi
}

# --- the host ----------------------------------------------------------
sysfs_cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
run doctor
expect_status "doctor on this machine: every call on its fast path" 0
cp "$tmp/out" "$tmp/out.text"
if [ -n "$sysfs_cs" ] && grep -q "clocksource $sysfs_cs" "$tmp/out"; then
	ok "doctor names the clocksource ($sysfs_cs)"
else
	not_ok "doctor names the clocksource '$sysfs_cs'"
	head -8 "$tmp/out" | diag
fi
if grep -q '^Verdict: every call is on its fast path' "$tmp/out"; then ok "verdict line"; else not_ok "verdict line"; fi

run doctor --json
expect_status "doctor --json" 0
cp "$tmp/out" "$tmp/host.json"
if jq -e '.schema == "vdsokit-doctor"' "$tmp/host.json" >/dev/null 2>&1; then
	ok "doctor --json parses (schema vdsokit-doctor)"
else
	not_ok "doctor --json parses"
fi
expect_doctor "doctor-expect host: healthy machine" host "$tmp/host.json"
if jq -e --arg cs "$sysfs_cs" '.clocksource.current == $cs' "$tmp/host.json" >/dev/null 2>&1; then
	ok "JSON names the clocksource $sysfs_cs, measured vDSO $(jq .clocksource.vdso_ns "$tmp/host.json") ns vs syscall $(jq .clocksource.syscall_ns "$tmp/host.json") ns"
else
	not_ok "JSON clocksource"
fi
if jq -e 'all(.findings[]; (.id | length > 0) and (.title | length > 0) and (.evidence | type == "array"))' \
	"$tmp/host.json" >/dev/null 2>&1 &&
	jq -e 'all(.findings[] | select(.severity != "ok"); .action | type == "string" and length > 0)' \
		"$tmp/host.json" >/dev/null 2>&1; then
	ok "every finding has an id, a title, evidence, and (unless ok) an action"
else
	not_ok "finding structure"
fi
if jq -e 'any(.findings[]; .id == "cputime-syscall" and .severity == "info")' "$tmp/host.json" >/dev/null; then
	ok "CPU-time clocks reported as always taking a syscall"
else
	not_ok "CPU-time clock finding"
fi
# getcpu served from the libc's rseq area (one load, no vDSO call) is a
# fast path.  Doctor as of cd1f2a1 filed it under "calls that fall back to
# the syscall" (warning) and left it out of the user-space paths.  The
# route comes from `vdsokit info --json`, not from doctor itself.
getcpu_route=$("$vdsokit" info --json 2>/dev/null | jq -r '.functions[] | select(.function == "getcpu") | .route')
if [ "$getcpu_route" = rseq ]; then
	getcpu_warned=$(jq -r '.findings[] | select(.severity == "warning" or .severity == "slow") | select(.title | test("\\bgetcpu\\b")) | .title' "$tmp/host.json")
	getcpu_slow_text=$(grep -E '^  (warn|SLOW) .*\bgetcpu\b' "$tmp/out.text")
	if [ -z "$getcpu_warned" ] && [ -z "$getcpu_slow_text" ]; then
		ok "getcpu on the rseq route (vdsokit info): no warning or slow finding names it"
	else
		not_ok "getcpu on the rseq route (vdsokit info), but doctor warns about it"
		printf '%s\n%s\n' "$getcpu_warned" "$getcpu_slow_text" | diag
	fi
	if jq -e '[.findings[] | select(.id == "functions") | .evidence[]] | join(" ") | test("(^|; )getcpu -> the rseq area")' \
		"$tmp/host.json" >/dev/null; then
		ok "getcpu counted among the user-space paths: $(jq -r '.findings[] | select(.id == "functions") | .title' "$tmp/host.json")"
	else
		not_ok "getcpu on the rseq route is not among doctor's user-space paths"
		jq -r '.findings[] | select(.id == "functions") | .title, .evidence[]' "$tmp/host.json" | diag
	fi
	# cpu_id only: at most an info note naming what a call for the node takes.
	node_path=$(jq -r '.functions[] | select(.function == "getcpu" and (.reason | test("cpu_id only"))) | .symbol // .syscall' "$tmp/host.json")
	if [ -z "$node_path" ]; then
		skip "the rseq area has node_id here: no cpu-only note to check"
	elif jq -e --arg via "$node_path" 'any(.findings[]; .id == "rseq-cpu-only" and .severity == "info" and (.title | contains($via)))' \
		"$tmp/host.json" >/dev/null; then
		ok "cpu_id only: an info note says $(jq -r '.findings[] | select(.id == "rseq-cpu-only") | .title' "$tmp/host.json")"
	else
		not_ok "cpu_id only: no info note naming $node_path for a call that asks for the node"
		jq -c '.findings[] | select(.title | test("getcpu"))' "$tmp/host.json" | diag
	fi
else
	skip "getcpu is not on the rseq route here (vdsokit info: '${getcpu_route:-?}')"
	skip "getcpu among the user-space paths"
	skip "cpu-only note"
fi
reject_doctor "doctor-expect tells the host apart from hpet" hpet "$tmp/host.json"
reject_doctor "doctor-expect tells the host apart from vdso=0" vdso0 "$tmp/host.json"

# vdso=0 on a command line whose kernel mapped a vDSO anyway (one without
# the option, e.g. arm64's): no cause to name.  An earlier doctor suggested
# vdso=0 while the auxv entry was there.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	printf '%s vdso=0\n' "$(cat /proc/cmdline)" >"$tmp/cmdline" &&
	unshare -m sh -c 'mount --bind "$1" /proc/cmdline && exec "$2" doctor --json' sh \
		"$tmp/cmdline" "$vdsokit" >"$tmp/vdso0-ignored.json" 2>"$tmp/err" &&
	jq -e '.environment.cmdline_vdso == "vdso=0"' "$tmp/vdso0-ignored.json" >/dev/null 2>&1; then
	expect_doctor "/proc/cmdline says vdso=0, the vDSO is mapped: doctor suggests nothing about vdso=0" \
		host "$tmp/vdso0-ignored.json"
else
	skip "/proc/cmdline with vdso=0 over a mapped vDSO: needs root, unshare and a bind mount ($(head -1 "$tmp/err" 2>/dev/null))"
fi

# --- a time namespace with offsets: reported, still fast ------------------
ns_status=skip
if command -v unshare >/dev/null; then
	unshare --time --fork --monotonic 1000 --boottime 2000 "$vdsokit" doctor --json >"$tmp/ns.json" 2>"$tmp/ns.err"
	ns_status=$?
	grep -q '^unshare:' "$tmp/ns.err" && ns_status=skip
fi
if [ "$ns_status" = skip ]; then
	skip "cannot create a time namespace here: $(head -1 "$tmp/ns.err" 2>/dev/null)"
elif [ "$ns_status" -eq 0 ] &&
	jq -e 'any(.findings[]; .id == "time-namespace" and .severity == "info") and .environment.monotonic_offset_s == 1000 and .environment.boottime_offset_s == 2000 and .verdict.fast' \
		"$tmp/ns.json" >/dev/null 2>&1; then
	ok "in a time namespace (unshare --time): reported with its offsets, verdict still fast (exit 0)"
else
	not_ok "time namespace finding (exit $ns_status)"
	jq -c '.findings[] | select(.id == "time-namespace")' "$tmp/ns.json" 2>&1 | diag
fi

# --- a seccomp filter (allow-all, installed by python through prctl) ------
if command -v python3 >/dev/null; then
	cat >"$tmp/seccomp.py" <<'EOF'
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
class sock_fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
# One instruction: BPF_RET | BPF_K, SECCOMP_RET_ALLOW.
insn = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0x7fff0000))
prog = sock_fprog(1, ctypes.addressof(insn))
# PR_SET_NO_NEW_PRIVS, then PR_SET_SECCOMP with SECCOMP_MODE_FILTER.
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
    sys.stderr.write("seccomp: %s\n" % os.strerror(ctypes.get_errno()))
    sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])
EOF
	python3 "$tmp/seccomp.py" "$vdsokit" doctor --json >"$tmp/seccomp.json" 2>"$tmp/seccomp.err"
	st=$?
	if [ $st -eq 77 ]; then
		skip "cannot install a seccomp filter here: $(head -1 "$tmp/seccomp.err")"
	elif [ $st -eq 0 ] && jq -e 'any(.findings[]; .id == "seccomp" and .severity == "info") and .environment.seccomp_mode == 2 and .environment.seccomp_filters >= 1' \
		"$tmp/seccomp.json" >/dev/null 2>&1; then
		ok "under a seccomp filter: reported (mode 2, $(jq .environment.seccomp_filters "$tmp/seccomp.json") filter), still fast (exit 0)"
	else
		not_ok "seccomp finding (exit $st)"
		head -3 "$tmp/seccomp.err" | diag
	fi
else
	skip "no python3 to install a seccomp filter"
fi

# --- valgrind hides the vDSO on x86 ---------------------------------------
# (not for a sanitizer build: valgrind cannot host ASan's shadow memory)
if sanitized address; then
	skip "vdsokit is built with ASan, which valgrind cannot host"
	skip "valgrind reasons"
	skip "doctor-expect valgrind"
elif command -v valgrind >/dev/null; then
	valgrind -q --error-exitcode=99 "$vdsokit" doctor >"$tmp/vg.out" 2>"$tmp/vg.err"
	st=$?
	if [ $st -eq 1 ]; then
		ok "under valgrind: doctor exits 1 (not on the fast path), no valgrind error"
	else
		not_ok "under valgrind: exit $st, want 1 (99 would be a valgrind error)"
		tail -5 "$tmp/vg.err" | diag
	fi
	if grep -q 'no vDSO is mapped' "$tmp/vg.out" && grep -q 'running under valgrind' "$tmp/vg.out"; then
		ok "under valgrind: says no vDSO, running under valgrind"
	else
		not_ok "under valgrind: the reasons"
		head -12 "$tmp/vg.out" | diag
	fi
	valgrind -q "$vdsokit" doctor --json >"$tmp/vg.json" 2>/dev/null
	expect_doctor "doctor-expect valgrind" valgrind "$tmp/vg.json"
else
	skip "valgrind is not installed"
	skip "valgrind reasons"
	skip "doctor-expect valgrind"
fi

# --- qemu-user: an aarch64 build, emulated ------------------------------
qemu=$(command -v qemu-aarch64-static || true)
a64=$build/aarch64/vdsokit
if [ -n "$qemu" ] && cross_vdsokit aarch64-linux-gnu aarch64; then
	"$qemu" "$a64" doctor --json >"$tmp/qemu.json" 2>"$tmp/qemu.err"
	st=$?
	if [ $st -eq 1 ]; then ok "aarch64 under qemu-user: exit 1"; else not_ok "aarch64 under qemu-user: exit $st, want 1"; fi
	expect_doctor "doctor-expect qemu-user" qemu-user "$tmp/qemu.json"
	"$qemu" "$a64" doctor >"$tmp/qemu.out" 2>&1
	if grep -q 'emulated by qemu-user' "$tmp/qemu.out"; then
		ok "text says: $(grep -m1 'emulated by qemu-user' "$tmp/qemu.out" | sed 's/^ *SLOW *//')"
	else
		not_ok "text names qemu-user"
	fi
else
	skip "qemu-user: no qemu-aarch64-static or aarch64 cross compiler, or the build failed"
	skip "doctor-expect qemu-user"
	skip "qemu-user text"
	[ -s "$tmp/make.log" ] && tail -5 "$tmp/make.log" | diag
fi

# --- 32-bit userspace on this 64-bit kernel (i686 runs natively on x86_64) ---
i686=$build/i686/vdsokit
if [ "$(uname -m)" = x86_64 ] && cross_vdsokit i686-linux-gnu i686; then
	"$i686" doctor --json >"$tmp/i686.json" 2>"$tmp/i686.err"
	st=$?
	if jq -e 'any(.findings[]; .id == "compat-32bit" and .severity == "info") and .host.library_arch == "i386"' \
		"$tmp/i686.json" >/dev/null 2>&1; then
		ok "i386 build: 32-bit userspace on a 64-bit kernel reported (exit $st)"
	else
		not_ok "i386 build: compat-32bit finding (exit $st)"
		head -3 "$tmp/i686.err" | diag
	fi
	if [ $st -eq 0 ]; then
		ok "i386 build: the compat vDSO is on its fast path (exit 0)"
	else
		not_ok "i386 build: exit $st, slow: $(jq -c .verdict.slow "$tmp/i686.json" 2>/dev/null)"
	fi
else
	skip "i386: not an x86_64 host, no i686 cross compiler, the build failed, or this kernel does not execute i386 binaries"
	skip "i386 fast path"
fi

# --- the matcher on what real guests printed (tests/qemu boots them) ----
expect_doctor "doctor-expect hpet accepts an x86_64 guest booted with clocksource=hpet" \
	hpet "$samples/amd64-hpet.json"
reject_doctor "doctor-expect vdso0 rejects the hpet guest" vdso0 "$samples/amd64-hpet.json"
reject_doctor "doctor-expect host rejects the hpet guest" host "$samples/amd64-hpet.json"
expect_doctor "doctor-expect vdso0 accepts an x86_64 guest booted with vdso=0" \
	vdso0 "$samples/amd64-novdso.json"
reject_doctor "doctor-expect hpet rejects the vdso=0 guest" hpet "$samples/amd64-novdso.json"
reject_doctor "doctor-expect guest rejects the vdso=0 guest" guest "$samples/amd64-novdso.json"
# vdso=0 named while /proc/self/auxv has the entry: the evidence contradicts the cause.
jq '(.findings[] | select(.id == "no-vdso") | .evidence) |= map(sub("auxv has no"; "auxv has an"))' \
	"$samples/amd64-novdso.json" >"$tmp/vdso0-auxv.json"
reject_doctor "doctor-expect vdso0 rejects vdso=0 named while /proc/self/auxv has AT_SYSINFO_EHDR" \
	vdso0 "$tmp/vdso0-auxv.json"
expect_doctor "doctor-expect host accepts a plain x86_64 guest" host "$samples/amd64.json"
expect_doctor "doctor-expect guest accepts the mips64el malta guest" guest "$samples/mips64el.json"
# This host (Linux 6.18, glibc registering 20 bytes of rseq: getcpu reads
# cpu_id only), doctor --json before and after it took the rseq route for a
# fast path (the kernel command line removed).  As of cd1f2a1 it warned
# "calls that fall back to the syscall: getcpu (cpu_id only: ...)".
expect_doctor "doctor-expect host accepts this host with getcpu from the rseq area" \
	host "$samples/host-rseq.json"
reject_doctor "doctor-expect host rejects doctor's 'getcpu falls back' on that host (cd1f2a1)" \
	host "$samples/host-rseq-mislabelled.json"
reject_doctor "doctor-expect guest rejects it too" guest "$samples/host-rseq-mislabelled.json"
# The arm64-6.12 guest: its rseq area has node_id too (RSEQ_AREA); doctor as
# of cd1f2a1 warned "getcpu (read from the libc's rseq area, the node too)".
expect_doctor "doctor-expect guest accepts the arm64-6.12 guest, getcpu from the rseq area" \
	guest "$samples/arm64-rseq.json"
reject_doctor "doctor-expect guest rejects doctor's 'getcpu falls back' on it (cd1f2a1)" \
	guest "$samples/arm64-rseq-mislabelled.json"
# m68k-vdso: the via1 clocksource has no user-space read, and the 6.12
# series exports no gettimeofday, which the library then reads as
# CLOCK_REALTIME, in the kernel (the sample: doctor in that guest on
# 2026-12-03).  Doctor as of 257e8bf called the clocksource's read slow
# ("trapped or emulated"), verdict slow (the mislabelled sample, from the
# 6.1 series' guest); the matcher must catch that.
expect_doctor "doctor-expect m68k-vdso accepts the m68k-vdso guest" m68k-vdso "$samples/m68k-vdso.json"
expect_doctor "doctor-expect guest accepts the m68k-vdso guest too" guest "$samples/m68k-vdso.json"
reject_doctor "doctor-expect m68k-vdso rejects doctor's mislabels of that guest (257e8bf)" \
	m68k-vdso "$samples/m68k-vdso-mislabelled.json"
reject_doctor "doctor-expect m68k-vdso rejects the mips64el guest" m68k-vdso "$samples/mips64el.json"
echo '{"schema": "something-else"}' >"$tmp/bogus.json"
"$expect_tool" host <"$tmp/bogus.json" >/dev/null 2>&1
st=$?
if [ $st -eq 2 ]; then ok "doctor-expect: input that is not doctor's JSON is an error (exit 2)"; else not_ok "doctor-expect bogus input: exit $st"; fi

# --- usage errors ------------------------------------------------------
run doctor extra
expect_error "doctor with an extra argument" 2 "unexpected argument"
run doctor --nope
expect_error "doctor with an unknown option" 2 "unknown option"
run doctor --help
expect_status "doctor --help" 0

# sysfs says hpet (no vDSO read) while the vDSO measures fast: two facts
# that cannot both hold are a finding with both, never "hpet is read in
# user space".
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
   [ -e /sys/devices/system/clocksource/clocksource0/current_clocksource ]; then
	cat >"$tmp/hpet" <<'EOF2'
echo hpet >"$1"
mount --bind "$1" /sys/devices/system/clocksource/clocksource0/current_clocksource || exit 90
shift
exec "$@"
EOF2
	unshare -m sh "$tmp/hpet" "$tmp/cs" "$vdsokit" doctor --json >"$tmp/hpet.json" 2>/dev/null
	if jq -e 'any(.findings[]; .id == "clocksource-fallback")' "$tmp/hpet.json" >/dev/null; then
		skip "a faked hpet: the vDSO really is slow here"
	else
		json_check "sysfs says hpet, the vDSO measures fast: doctor reports the contradiction with both" \
			"$tmp/hpet.json" 'any(.findings[]; .id == "clocksource-contradiction" and
			 any(.evidence[]; test("measured")) and any(.evidence[]; test("current clocksource: hpet"))) and
			 all(.findings[]; (.title | test("hpet is read in user space")) | not)'
	fi
else
	skip "a faked hpet needs root and unshare -m"
fi

# setarch i686 changes what uname says, not the process: the machine named
# is the kernel's.
if [ "$(uname -m)" = x86_64 ] && command -v setarch >/dev/null && setarch i686 true 2>/dev/null; then
	setarch i686 "$vdsokit" metrics >"$tmp/m.prom" 2>/dev/null
	if grep -q 'vdsokit_host_info{.*machine="x86_64"' "$tmp/m.prom"; then
		ok "setarch i686: metrics name the machine x86_64, not i686"
	else
		not_ok "setarch i686: metrics name the machine x86_64, not i686"
		grep host_info "$tmp/m.prom" | diag
	fi
	# personality() refused (135 on x86_64): the personality cannot be
	# lifted, yet a 64-bit process's kernel is 64-bit; report says both.
	sandbox=$build/tests/tools/sandbox-run
	if [ -x "$sandbox" ]; then
		setarch i686 "$sandbox" --errno EPERM 135 -- "$vdsokit" metrics --time 0.1 \
			>"$tmp/m.prom" 2>/dev/null
		setarch i686 "$sandbox" --errno EPERM 135 -- "$vdsokit" report --no-bench \
			>"$tmp/r.txt" 2>/dev/null
		if grep -q 'vdsokit_host_info{.*machine="x86_64"' "$tmp/m.prom" &&
		   grep -q '^  architecture  x86_64 ' "$tmp/r.txt" &&
		   grep -q '^  personality   linux32 .*says i686.*still x86_64' "$tmp/r.txt"; then
			ok "setarch i686, personality() refused: machine x86_64, the personality said apart"
		else
			not_ok "setarch i686, personality() refused: machine x86_64, the personality said apart"
			{ grep host_info "$tmp/m.prom"; sed -n 3,5p "$tmp/r.txt"; } | diag
		fi
	else
		skip "setarch i686 with personality() refused: no sandbox-run built"
	fi
else
	skip "setarch i686 needs an x86_64 host"
	skip "setarch i686 needs an x86_64 host"
fi

# A libfaketime-style shim replacing libc's clock_gettime: a finding, and
# no "every call is on its fast path".
if command -v cc >/dev/null && ! sanitized any; then
	cat >"$tmp/shim.c" <<'EOF2'
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int clock_gettime(clockid_t c, struct timespec *ts) { return (int)syscall(SYS_clock_gettime, c, ts); }
EOF2
	if cc -shared -fPIC -o "$tmp/shim.so" "$tmp/shim.c" 2>/dev/null; then
		LD_PRELOAD=$tmp/shim.so "$vdsokit" doctor --json >"$tmp/shim.json" 2>/dev/null
		st=$?
		if [ "$st" = 1 ]; then
			json_check "an interposed libc clock_gettime is a finding naming the object (exit 1)" \
				"$tmp/shim.json" 'any(.findings[]; .id == "libc-clock-interposed" and
				 (.title | test("shim.so")) and any(.evidence[]; test("LD_PRELOAD")))'
		else
			not_ok "an interposed libc clock_gettime: doctor exit $st, want 1"
		fi
	else
		skip "an interposed libc clock: cannot build the shim"
	fi
else
	skip "an interposed libc clock: no cc, or a sanitized build"
fi

# --- the table of checks (cli/commands/doctor.c) -----------------------------
# Every finding id doctor can write is declared by one check of its table;
# the ids the checks' source adds (an id literal beside its SEVERITY_, as
# cli/checks/doctor.h asks) are exactly those; every id doctor wrote above,
# and in the guests' samples, is one of them; and so is every id
# docs/json.md and the man page name, with the severity docs/json.md gives.
awk '/^static const struct doctor_check doctor_checks\[\] = \{/ { inside = 1; next }
     inside && /^\};/ { exit }
     inside { print }' "$top/cli/commands/doctor.c" | tr '\n' ' ' |
	grep -o 'IDS([^)]*)' | grep -o '"[^"]*"' | tr -d '"' | sort >"$tmp/table.ids"
dups=$(uniq -d "$tmp/table.ids" | paste -sd' ')
if [ -s "$tmp/table.ids" ] && [ -z "$dups" ]; then
	ok "doctor's table declares $(wc -l <"$tmp/table.ids") finding ids, each in one check"
else
	not_ok "doctor's table: no ids read, or ids declared twice: $dups"
fi
grep -ho '"[a-z0-9-]*", SEVERITY_[A-Z]*' "$top"/cli/checks/doctor_*.c |
	sed 's/"\([^"]*\)", SEVERITY_\([A-Z]*\)/\1 \2/' | sort -u >"$tmp/source.severities"
cut -d' ' -f1 "$tmp/source.severities" | sort -u >"$tmp/source.ids"
undeclared=$(comm -13 "$tmp/table.ids" "$tmp/source.ids" | paste -sd' ')
unused=$(comm -23 "$tmp/table.ids" "$tmp/source.ids" | paste -sd' ')
if [ -z "$undeclared" ] && [ -z "$unused" ]; then
	ok "the checks in cli/checks/doctor_*.c add exactly the ids the table declares"
else
	not_ok "ids added but not in the table: ${undeclared:-none}; in the table but never added: ${unused:-none}"
fi

# Doctor's JSON under each --image of this architecture (a test aid) too.
arch=$("$vdsokit" --version | sed -n 's/.*, \([a-z0-9_]*\))$/\1/p')
for image in "$build/images/$arch"/*.so; do
	[ -f "$image" ] || continue
	"$vdsokit" doctor --json --image "$image" >"$tmp/image-$(basename "$image" .so).json" 2>/dev/null
done
written=0
: >"$tmp/written.ids"
for json in "$tmp"/*.json "$samples"/*.json; do
	jq -r 'select(.schema == "vdsokit-doctor") | .findings[].id' "$json" 2>/dev/null >>"$tmp/written.ids" &&
		written=$((written + 1))
done
sort -u "$tmp/written.ids" -o "$tmp/written.ids"
stray=$(comm -13 "$tmp/table.ids" "$tmp/written.ids" | paste -sd' ')
if [ -s "$tmp/written.ids" ] && [ -z "$stray" ]; then
	ok "every id in $written doctor outputs ($(wc -l <"$tmp/written.ids") ids) is in the table"
else
	not_ok "ids doctor wrote that its table lacks: ${stray:-no ids read}"
fi

# docs/json.md: "the ids include `ID` (SEVERITY: …)" and "a `ID` finding".
awk '$0 == "## `vdsokit-doctor`" { inside = 1; next } inside && /^## / { exit } inside' \
	"$top/docs/json.md" | tr '\n' ' ' >"$tmp/json-doctor.md"
sed 's/.*the ids include//; s/`verdict`.*//' "$tmp/json-doctor.md" |
	grep -o '`[a-z0-9-]*` ([a-z]*' | sed 's/`\([^`]*\)` (\(.*\)/\1 \2/' >"$tmp/doc.severities"
{ cut -d' ' -f1 "$tmp/doc.severities"; grep -o '`[a-z0-9-]*` finding' "$tmp/json-doctor.md" |
	cut -d'`' -f2; } | sort -u >"$tmp/doc.ids"
# The man page: the finding names set in bold in doctor's entry.
sed -n '/^\.B doctor /,/^\.B metrics /p' "$top/man/vdsokit.1" | grep -E '^\.B [a-z][a-z0-9\\-]*$' |
	sed 's/^\.B //; s/\\-/-/g' | sort -u >"$tmp/man.ids"
missing=$(cat "$tmp/doc.ids" "$tmp/man.ids" | sort -u | comm -23 - "$tmp/table.ids" | paste -sd' ')
if [ -s "$tmp/doc.ids" ] && [ -s "$tmp/man.ids" ] && [ -z "$missing" ]; then
	ok "the ids docs/json.md ($(paste -sd' ' "$tmp/doc.ids")) and the man page ($(paste -sd' ' "$tmp/man.ids")) name are in the table"
else
	not_ok "ids the docs name that doctor's table lacks: ${missing:-none read from the docs}"
fi
wrong=
while read -r id severity; do
	grep -qx "$id $(echo "$severity" | tr a-z A-Z)" "$tmp/source.severities" || wrong="$wrong $id ($severity)"
done <"$tmp/doc.severities"
if [ -s "$tmp/doc.severities" ] && [ -z "$wrong" ]; then
	ok "docs/json.md gives $(wc -l <"$tmp/doc.severities") ids the severity their checks give them"
else
	not_ok "docs/json.md's severity is not the check's for:${wrong:- none read}"
fi

done_testing
