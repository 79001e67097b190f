#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/qemu/results-table's stack columns, on made-up matrix artifacts (no
# QEMU): a guest whose summary has the stack facts shows the figures; one
# without a figure (no vDSO, stack.t skipped) shows a dash and a footnote
# saying why, never a 0; a summary written before run-target recorded the
# facts gets them from the guest's info.json and stack.t output
# (tests/qemu/stack-facts).
. "$(dirname "$0")/lib.sh"

if ! have jq; then
	echo "1..0 # SKIP jq is not installed (results-table needs it)"
	exit 0
fi

b=$tmp/build
q=$b/qemu
summary() { # TARGET KEY=VALUE...: a summary of a guest that booted
	mkdir -p "$q/$1"
	t=$1
	shift
	{
		echo "target=$t"
		echo "about=made up for the test"
		echo "kernel=linux-image-6.1.0-test 6.1.0-1"
		echo "boot=ok"
		echo "verify=pass"
		printf '%s\n' "$@"
	} >"$q/$t/summary"
}

# Facts recorded by run-target.
summary amd64 vdso_stack=48 vdso_stack_function=clock_gettime "vdso_stack_through=bare entry" \
	vdso_stack_page_granular=false lib_stack=712 lib_stack_arch=x86_64 \
	"lib_stack_with=this kernel's vDSO" "lib_stack_deepest=vdsokit_route_of, first call"
summary amd64-novdso "vdso_stack_why=no vDSO in this guest: vdso=0 on the command line" \
	lib_stack=464 lib_stack_arch=x86_64 "lib_stack_with=no vDSO: the syscalls" \
	"lib_stack_deepest=vdsokit_route_of, first call"
summary amd64-hpet vdso_stack=4160 vdso_stack_function=clock_gettime "vdso_stack_through=bare entry" \
	vdso_stack_page_granular=true "lib_stack_why=stack.t skipped: this libc has no makecontext"
summary ppc64 vdso_stack=1024 vdso_stack_function=getrandom \
	"vdso_stack_through=vdsokit_*_via(VDSOKIT_ROUTE_VDSO)" vdso_stack_page_granular=false \
	lib_stack=1384 lib_stack_arch=ppc64 "lib_stack_with=this kernel's vDSO" \
	"lib_stack_deepest=vdsokit_getrandom(32), first call"
# A guest that did not boot.
mkdir -p "$q/m68k"
printf 'target=m68k\nboot=skip\n' >"$q/m68k/summary"
# Summaries from before the facts: the artifacts beside them.
summary arm64
mkdir -p "$q/arm64/steps"
cat >"$q/arm64/info.json" <<'EOF'
{ "at_sysinfo_ehdr": "0xffff0000", "functions": [
  { "function": "clock_gettime", "stack": { "deepest_bytes": 16, "page_granular": false, "through": "bare entry" } },
  { "function": "gettimeofday", "stack": { "deepest_bytes": 32, "page_granular": false, "through": "bare entry" } },
  { "function": "thread_pointer", "stack": null, "stack_unmeasured_reason": "no entry" } ] }
EOF
printf 'ok 1 - something\n# stack-max aarch64 704 (this kernel'"'"'s vDSO) deepest: vdsokit_clock_gettime(MONOTONIC), first call\n1..1\n' \
	>"$q/arm64/steps/test.stack.out"
summary riscv64
mkdir -p "$q/riscv64/steps"
cat >"$q/riscv64/info.json" <<'EOF'
{ "at_sysinfo_ehdr": null, "at_sysinfo_ehdr_absent_reason": "the kernel mapped no vDSO (test)",
  "functions": [ { "function": "clock_gettime", "stack": null,
    "stack_unmeasured_reason": "no vDSO entry to call (vdsokit_bare_entry: ENOENT)" } ] }
EOF
echo '1..0 # SKIP the probe stack cannot be mapped' >"$q/riscv64/steps/test.stack.out"

if "$top/tests/qemu/results-table" "$b" matrix >"$tmp/table" 2>"$tmp/table.err"; then
	ok "results-table ran on the made-up artifacts"
else
	not_ok "results-table ran on the made-up artifacts"
	diag <"$tmp/table.err"
fi

# row TARGET: the cells of its row, one a line (the leading empty one dropped).
row() { grep "^| $1 |" "$tmp/table" | tr '|' '\n' | sed '1d; s/^ //; s/ $//'; }
# cell TARGET HEADER: the cell of TARGET's row under HEADER.
cell() {
	col=$(grep '^| target |' "$tmp/table" | tr '|' '\n' | sed '1d; s/^ //; s/ $//' | grep -nxF -- "$2" | cut -d: -f1)
	[ -n "$col" ] && row "$1" | sed -n "${col}p"
}
# footnote MARKER: the text of the footnote the cell's marker ([^sN]) points at.
footnote() {
	m=$(printf '%s\n' "$1" | sed -n 's/.*\[\^\(s[0-9]*\)\].*/\1/p')
	[ -n "$m" ] && sed -n "s/^\[\^$m\]: //p" "$tmp/table"
}
expect_cell() { # TARGET HEADER WANT(fixed string) DESCRIPTION
	got=$(cell "$1" "$2")
	case $got in
	*"$3"*) ok "$4: '$got'" ;;
	*)
		not_ok "$4 (want '$3')"
		{ echo "got: '$got'"; grep -e '^| target' -e "^| $1 |" "$tmp/table"; } | diag
		;;
	esac
}
# expect_dash TARGET HEADER WHY DESCRIPTION: a dash, a footnote saying WHY.
expect_dash() {
	got=$(cell "$1" "$2")
	why=$(footnote "$got")
	case $got in
	"—[^s"*"]")
		case $why in
		*"$3"*) ok "$4: '$got', footnote '$why'" ;;
		*) not_ok "$4: footnote of '$got' says why (want '$3', got '$why')" ;;
		esac
		;;
	*)
		not_ok "$4: a dash with a footnote (got '$got')"
		grep -e '^| target' -e "^| $1 |" "$tmp/table" | diag
		;;
	esac
}

if grep -q '^| target |.*| vDSO stack | libvdsokit stack |' "$tmp/table"; then
	ok "the table has the stack columns"
else
	not_ok "the table has the stack columns"
	grep '^| target' "$tmp/table" | diag
fi
expect_cell amd64 "vDSO stack" '48 B (`clock_gettime`)' "amd64: the vDSO's deepest entry and its function"
expect_cell amd64 "libvdsokit stack" '712 B: vdsokit_route_of, first call' "amd64: the library's max and its call"
expect_dash amd64-novdso "vDSO stack" "no vDSO in this guest: vdso=0" "amd64-novdso: no vDSO, no figure"
expect_cell amd64-novdso "libvdsokit stack" '464 B: vdsokit_route_of, first call (no vDSO: the syscalls)' \
	"amd64-novdso: the library's max says it ran without a vDSO"
expect_cell amd64-hpet "vDSO stack" '≤ 4160 B (`clock_gettime`)' "a page-granular figure is an upper bound"
got=$(cell amd64-hpet "vDSO stack")
case $(footnote "$got") in
*"page's granularity"*) ok "its footnote says why" ;;
*) not_ok "a page-granular figure's footnote (cell '$got')" ;;
esac
expect_dash amd64-hpet "libvdsokit stack" "stack.t skipped: this libc has no makecontext" \
	"stack.t skipped: no figure"
expect_cell ppc64 "vDSO stack" '1024 B (`getrandom`)[^s' "ppc64: a figure through the library"
got=$(cell ppc64 "vDSO stack")
case $(footnote "$got") in
*"library's frame included"*) ok "its footnote says the library's frame is in it" ;;
*) not_ok "a figure through vdsokit_*_via: its footnote (cell '$got')" ;;
esac
expect_cell m68k "vDSO stack" 'not run' "a guest that did not boot: not run"
expect_cell arm64 "vDSO stack" '32 B (`gettimeofday`)' "an older summary: the deepest entry from info.json"
expect_cell arm64 "libvdsokit stack" '704 B: vdsokit_clock_gettime(MONOTONIC), first call' \
	"an older summary: the library's max from stack.t's output"
expect_dash riscv64 "vDSO stack" "no vDSO in this guest: the kernel mapped no vDSO (test)" \
	"an older summary, no vDSO in info.json"
expect_dash riscv64 "libvdsokit stack" "stack.t skipped: the probe stack cannot be mapped" \
	"an older summary, stack.t skipped"

# No made-up figure: no stack cell of the guests without one is a number.
if for t in amd64-novdso riscv64; do cell "$t" "vDSO stack"; done | grep -q '[0-9] B'; then
	not_ok "no figure where none was measured"
else
	ok "no figure where none was measured"
fi
# Every marker has its footnote, and each footnote is used.
markers=$(grep '^| ' "$tmp/table" | grep -o '\[\^s[0-9]*\]' | sort -u)
defs=$(sed -n 's/^\(\[\^s[0-9]*\]\): .*/\1/p' "$tmp/table" | sort -u)
if [ -n "$markers" ] && [ "$markers" = "$defs" ]; then
	ok "every footnote marker is defined, every definition used ($(echo $markers))"
else
	not_ok "footnote markers and definitions agree"
	{ echo "markers: $markers"; echo "definitions: $defs"; } | diag
fi

# ---- the y2038 section: time-paths.t's TIMEPATH lines, per ABI ------------
summary amd64-i386
summary y2038-i386
summary y2038-x32
timepaths() { # TARGET ABI TIME32 LINES...
	mkdir -p "$q/$1/steps"
	t=$1 abi=$2 has=$3
	shift 3
	{
		echo "# TIMEPATH-KERNEL|$abi|time32-syscalls=$has|glibc"
		echo "ok 1 - something"
		printf '%s\n' "$@"
		echo "1..1"
	} >"$q/$t/steps/test.time-paths.out"
}
timepaths amd64-i386 i386 yes \
	'# TIMEPATH|vdsokit|clock_gettime(MONOTONIC)|0|vdso|__vdso_clock_gettime64|0|none' \
	'# TIMEPATH|libc|clock_gettime(MONOTONIC)|0|-|-|0|none' \
	'# TIMEPATH|vdsokit|clock_getres(PROCESS_CPUTIME_ID)|0|syscall|-|1|clock_getres_time64' \
	'# TIMEPATH|libc|clock_getres(PROCESS_CPUTIME_ID)|0|-|-|2|clock_getres(time32) ... clock_getres_time64'
timepaths y2038-i386 i386 no \
	'# TIMEPATH|vdsokit|clock_gettime(MONOTONIC)|0|vdso|__vdso_clock_gettime64|1|clock_gettime64' \
	'# TIMEPATH|libc|clock_gettime(MONOTONIC)|0|-|-|?|not counted' \
	'# TIMEPATH|vdsokit|clock_getres(PROCESS_CPUTIME_ID)|0|syscall|-|1|clock_getres_time64' \
	'# TIMEPATH|libc|clock_getres(PROCESS_CPUTIME_ID)|ENOSYS|-|-|1|clock_getres(time32)'
timepaths y2038-x32 x32 n/a \
	'# TIMEPATH|vdsokit|clock_gettime(MONOTONIC)|0|vdso|__vdso_clock_gettime|0|none' \
	'# TIMEPATH|libc|clock_gettime(MONOTONIC)|0|-|-|1|clock_gettime(x86_64'"'"'s)'
if "$top/tests/qemu/results-table" "$b" y2038 >"$tmp/y2038" 2>"$tmp/y2038.err"; then
	ok "results-table y2038 ran on the made-up artifacts"
else
	not_ok "results-table y2038 ran on the made-up artifacts"
	diag <"$tmp/y2038.err"
fi
expect_line() { # FIXED-STRING DESCRIPTION
	if grep -qF -- "$1" "$tmp/y2038"; then
		ok "$2"
	else
		not_ok "$2 (want a line with '$1')"
		diag <"$tmp/y2038"
	fi
}
expect_line '| call | amd64-i386 (6.1.0-test 6.1.0-1, with the time32 syscalls): libvdsokit | C library | y2038-i386 (6.1.0-test 6.1.0-1, **without** the time32 syscalls): libvdsokit | C library |' \
	"i386: one column pair per guest, each saying whether its kernel has the time32 syscalls"
expect_line '| clock_gettime(MONOTONIC) | `__vdso_clock_gettime64` | no syscall | `__vdso_clock_gettime64` → clock_gettime64 | ? (syscalls not counted) |' \
	"an entry alone, an entry that made the syscall itself, a call not counted"
expect_line '| clock_getres(PROCESS_CPUTIME_ID) | clock_getres_time64 | 2 syscalls: clock_getres (time32) ... clock_getres_time64 | clock_getres_time64 | **ENOSYS** (clock_getres (time32)) |' \
	"the library's own syscall, two syscalls, an error with the syscall that gave it"
expect_line "| clock_gettime(MONOTONIC) | \`__vdso_clock_gettime\` | clock_gettime (x86_64's number) |" \
	"x32: a syscall the x86_64 vDSO code makes by its x86_64 number"
expect_line "x32 has no 32-bit-time syscalls to lose" "x32: said to be untouched by the option"
if grep -q '^### ' "$tmp/y2038" && ! grep -q '^### \(arm\|ppc32\)' "$tmp/y2038"; then
	ok "only the ABIs that ran have a table ($(grep '^### ' "$tmp/y2038" | tr '\n' ' '))"
else
	not_ok "only the ABIs that ran have a table"
	grep '^### ' "$tmp/y2038" | diag
fi

done_testing
