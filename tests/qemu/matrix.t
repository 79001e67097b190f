#!/bin/sh
# SPDX-License-Identifier: MIT
# matrix.t — the architecture matrix: real kernels of other architectures
# booted under qemu-system, each running the project's programs built for
# it.  Prints TAP.  Run by `make check` (through the wrapper tests/qemu/qemu.mk
# puts in $(BUILD)/tests/) or directly:
#
#   tests/qemu/matrix.t [--build DIR]        DIR: the host build (default build)
#
# Environment:
#   VDSOKIT_MATRIX=0                  skip the whole matrix (one SKIP per target)
#   VDSOKIT_MATRIX_TARGETS="arm64 s390x"   run only these targets
#   VDSOKIT_MATRIX_JOBS=2             guests booted at once (default 2)
#   VDSOKIT_CACHE=~/.cache/vdsokit    kernels, downloaded packages, images
#   VDSOKIT_BOOT_TIMEOUT=300          seconds before a guest counts as hung
#   VDSOKIT_MATRIX_COMPILE_ONLY=0     leave out the compile-only kernels (m68k-vdso-off, -amiga030)
#   VDSOKIT_MATRIX_GLIBC=0            leave out m68k's glibc with the vDSO series (its build, its tests)
#
# Three phases: (1) kernels — download Debian's while building the others
# (m68k, sparc64, riscv64, ppc, m68k-vdso) once, all cached; (2) cross
# builds — our guest tools and `make all` + test programs for each
# architecture, into $(BUILD)/ARCH; (3) boots, two at a
# time, each judged by tests/qemu/run-target.  Whatever cannot be had here
# (no network, no compiler, no QEMU) becomes SKIP lines naming the reason;
# a hung guest or a failed build is a failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/targets.sh"

build=${VDSOKIT_BUILD:-build}
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--build=*) build=${1#--build=}; shift ;;
	*) echo "usage: matrix.t [--build DIR]" >&2; exit 64 ;;
	esac
done
case $build in /*) ;; *) build=$root/$build ;; esac
cache=${VDSOKIT_CACHE:-$HOME/.cache/vdsokit}
export VDSOKIT_BUILD=$build VDSOKIT_ROOT=$root VDSOKIT_CACHE=$cache

targets=${VDSOKIT_MATRIX_TARGETS:-$MATRIX_TARGETS}
# Run from `make check`, we inherit the outer make's flags (jobserver
# descriptors, command-line variables such as CC): the cross builds below
# must not see them.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

n=0
emit() { # one TAP line without number -> numbered
	case $1 in
	"ok "* | "not ok "*)
		n=$((n + 1))
		echo "$1" | sed "s/^\(\(not \)*ok\) /\1 $n /"
		;;
	*) echo "$1" ;;
	esac
}

if [ "${VDSOKIT_MATRIX:-1}" = 0 ]; then
	for t in $targets; do
		emit "ok - $t: boot under QEMU # SKIP VDSOKIT_MATRIX=0"
	done
	echo "1..$n"
	exit 0
fi

prep=$build/qemu/prep
mkdir -p "$prep"
# One matrix at a time per build directory: two would share artifacts.
exec 8>"$build/qemu/.matrix-lock"
flock 8
rm -f "$prep"/*
started=$(date +%s)

known=""
for t in $targets; do
	if target_info "$t"; then
		known="$known $t"
	else
		emit "not ok - $t: known target (known: $MATRIX_TARGETS)"
	fi
done

skip_target() { # TARGET REASON: the whole target is skipped
	[ -s "$prep/$1.skip" ] || echo "$2" >"$prep/$1.skip"
}
arch_of() { (target_info "$1" && echo "$t_arch"); }
karch_of() { (target_info "$1" && echo "$t_kernel" | cut -d' ' -f2); }
skip_arch() { # ARCH REASON: every target built for ARCH is skipped
	for u in $known; do
		[ "$(arch_of "$u")" = "$1" ] && skip_target "$u" "$2"
	done
}

# ---- phase 1: kernels -----------------------------------------------------
# The downloads (one after the other, in the background) wait on the
# network while the kernel builds keep both cores busy: on a cold cache
# they overlap instead of adding up.  Each kernel leaves its stderr in
# $prep/kernel-KARCH.err and its exit status in $prep/kernel-KARCH.rc.
echo "# phase 1: kernels (cache $cache)"
fetches="" builds="" kernel_order=""
for t in $known; do
	target_info "$t"
	set -- $t_kernel
	case " $kernel_order " in *" $2 "*) continue ;; esac
	kernel_order="$kernel_order $2"
	if [ "$1" = fetch ]; then fetches="$fetches $2"; else builds="$builds $2"; fi
done
get_kernel() { # HOW KARCH
	rm -f "$prep/kernel-$2.rc"
	if [ "$1" = fetch ]; then
		"$here/fetch-kernels" "$2" 2>"$prep/kernel-$2.err"
	else
		"$here/build-kernel" "$2" >/dev/null 2>"$prep/kernel-$2.err"
	fi
	echo $? >"$prep/kernel-$2.rc"
}
(for k in $fetches; do get_kernel fetch "$k"; done) &
fetching=$!
for k in $builds; do get_kernel build "$k"; done
# m68k's C library with the project's vDSO series (tests/qemu/build-glibc),
# after the kernels: it takes the same lock and both cores.  The m68k guests
# run glibc's tests and tests/qemu/m68k-glibc.c against it; without it they
# say why and run the rest.
glibc_targets=""
for t in $known; do
	case $t in m68k | m68k-vdso) glibc_targets="$glibc_targets $t" ;; esac
done
# Its cost on a cold cache (a glibc build under the kernels' lock) and in
# the two m68k guests is in docs/matrix.md#cost; VDSOKIT_MATRIX_GLIBC=0
# leaves it out.
if [ -n "$glibc_targets" ] && [ "${VDSOKIT_MATRIX_GLIBC:-1}" != 0 ]; then
	"$here/build-glibc" >"$prep/glibc.path" 2>"$prep/glibc.err"
	echo $? >"$prep/glibc.rc"
elif [ -n "$glibc_targets" ]; then
	echo "build-glibc: the glibc half was left out (VDSOKIT_MATRIX_GLIBC=0)" >"$prep/glibc.err"
	echo 2 >"$prep/glibc.rc"
fi
# The m68k vDSO series in two more configurations, compiled, never booted:
# with CONFIG_M68K_VDSO=n, and on another machine (Amiga, 68030 only).
# Two kernel builds on a cold cache; VDSOKIT_MATRIX_COMPILE_ONLY=0 leaves them out.
compile_only=""
case " $known " in *" m68k-vdso "*) compile_only="m68k-vdso-off m68k-vdso-amiga030" ;; esac
[ "${VDSOKIT_MATRIX_COMPILE_ONLY:-1}" != 0 ] || compile_only=""
for k in $compile_only; do
	"$here/build-kernel" "$k" >/dev/null 2>"$prep/kernel-$k.err"
	echo $? >"$prep/kernel-$k.rc"
done
wait $fetching
for karch in $kernel_order; do
	rc=$(cat "$prep/kernel-$karch.rc" 2>/dev/null || echo 1)
	grep -v '^build-kernel: \(building\|extracting\)\|downloading' "$prep/kernel-$karch.err" |
		sed 's/^/# /'
	[ "$rc" -eq 0 ] && continue
	reason=$(grep -v '^ ' "$prep/kernel-$karch.err" | tail -n 1)
	first=1
	for u in $known; do
		[ "$(karch_of "$u")" = "$karch" ] || continue
		if [ "$rc" -eq 2 ]; then
			skip_target "$u" "no $karch kernel: ${reason:-unknown reason}"
		else
			# A kernel that fails to build is our failure, not the
			# machine's: report it once, skip the targets it blocks.
			[ $first -eq 1 ] && {
				emit "not ok - $karch: kernel builds"
				sed 's/^/#   /' "$prep/kernel-$karch.err" | tail -n 30
			}
			first=0
			skip_target "$u" "the $karch kernel failed to build (see above)"
		fi
	done
done

for k in $compile_only; do
	grep -v '^build-kernel: \(building\|extracting\)' "$prep/kernel-$k.err" | sed 's/^/# /'
	about=$(sed 's/^linux-source-6.12 [^,]*, //; s/ (built here)$//' "$cache/kernels/$k/package" 2>/dev/null)
	case $(cat "$prep/kernel-$k.rc") in
	0) emit "ok - $k: the m68k vDSO series compiles ($about)" ;;
	2) emit "ok - $k: the m68k vDSO series compiles # SKIP $(tail -n 1 "$prep/kernel-$k.err")" ;;
	*)
		emit "not ok - $k: the m68k vDSO series compiles"
		sed 's/^/#   /' "$prep/kernel-$k.err" | tail -n 30
		;;
	esac
done
if [ -n "$glibc_targets" ]; then
	grep -v '^build-glibc: \(building\|extracting\)' "$prep/glibc.err" | sed 's/^/# /'
	case $(cat "$prep/glibc.rc") in
	0) emit "ok - m68k: glibc 2.36 with tests/qemu/glibc/m68k-vdso built or cached ($(wc -l <"$(cat "$prep/glibc.path")/tests") glibc tests)" ;;
	2) echo "$(tail -n 1 "$prep/glibc.err")" >"$prep/glibc.skip" ;;
	*)
		emit "not ok - m68k: glibc 2.36 with tests/qemu/glibc/m68k-vdso builds"
		sed 's/^/#   /' "$prep/glibc.err" | tail -n 30
		echo "the glibc build failed (see above)" >"$prep/glibc.skip"
		;;
	esac
fi

# ---- phase 2: cross builds -------------------------------------------------
echo "# phase 2: cross builds into $build/ARCH"
cflags="-std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE"
# The test programs tests/tests.mk builds, as make goals for a cross build.
# Asked of make itself so the list follows that file; empty until it exists.
test_goals() {
	make -s -C "$root" BUILD="$1" -f Makefile -f "$here/print-var.mk" print-LIB_TESTS 2>/dev/null
}
# Debian's x32 cross libc ships libm.a as a linker script naming the native
# paths (/usr/lib/x86_64-linux-gnux32/libm-2.36.a), which an amd64 host does
# not have: when the compiler's libm.a names missing files, a copy naming
# them where they are goes first on the library path of abi_cc.
repair_libm() {
	libm=$($abi_cc -print-file-name=libm.a 2>/dev/null)
	grep -q '^GROUP' "$libm" 2>/dev/null || return 0
	members=$(sed -n 's/^GROUP *( *\(.*\) *)/\1/p' "$libm")
	for f in $members; do
		[ -e "$f" ] && continue
		fixed=$build/qemu/lib/$t_arch
		mkdir -p "$fixed"
		sed "s|/[^ ()]*/\([^/ ()]*\.a\)|$(dirname "$libm")/\1|g" "$libm" >"$fixed/libm.a"
		abi_cc="$abi_cc -L$fixed"
		return 0
	done
}
done_arches=" "
for t in $known; do
	[ -s "$prep/$t.skip" ] && continue
	target_info "$t"
	case "$done_arches" in *" $t_arch "*) continue ;; esac
	done_arches="$done_arches$t_arch "
	cc=$t_triple-gcc-12
	# The ABI flags go into CC itself, so that every compile and link
	# of the project's Makefile (which owns CFLAGS) selects that userland.
	abi_cc="$cc${t_cflags:+ $t_cflags}"
	if ! command -v "$cc" >/dev/null; then
		skip_arch "$t_arch" "no cross compiler $cc (install gcc-12-$t_triple)"
		continue
	fi
	repair_libm
	tools=$build/qemu/bin/$t_arch
	mkdir -p "$tools"
	for prog in guest-init vdso-probe; do
		if ! $abi_cc $cflags -static -o "$tools/$prog" "$here/$prog.c" 2>"$prep/tools-$t_arch.err"; then
			emit "not ok - $t_arch: $prog builds with $abi_cc -static"
			sed 's/^/#   /' "$prep/tools-$t_arch.err"
			skip_arch "$t_arch" "$prog did not build for $t_arch"
		fi
	done
	# The project itself: library, CLI, test programs; -k so that one
	# broken piece does not keep the others out of the guest.
	tests=$(test_goals "$build/$t_arch")
	what="library, CLI and $(echo $tests | wc -w) test programs with $abi_cc -static"
	# docs/kernel-findings.md#futex-time32's reproducer, which every guest runs.
	tests="$tests $build/$t_arch/tests/findings/futex-time32"
	log=$prep/build-$t_arch.log
	if make -k -j2 -C "$root" CC="$abi_cc" AR="$t_triple-ar" BUILD="$build/$t_arch" LDFLAGS=-static \
		all $tests >"$log" 2>&1; then
		emit "ok - $t_arch: cross build of $what"
	else
		emit "not ok - $t_arch: cross build of $what"
		grep -m 8 -E 'error:|\*\*\*' "$log" | sed 's/^/#   /'
		echo "cross build failed, see $log" >"$prep/build-$t_arch.reason"
		# make -k leaves the previous build's programs in place when
		# their sources no longer compile: list those as stale so they
		# are not tested as if they were today's.
		for f in "$build/$t_arch/vdsokit" $tests; do
			make -q -C "$root" CC="$abi_cc" AR="$t_triple-ar" BUILD="$build/$t_arch" \
				LDFLAGS=-static "$f" >/dev/null 2>&1 || echo "$f" >>"$prep/stale-$t_arch"
		done
	fi
	# m68k: the thread-pointer proof and the seed's table, linked with the
	# library just built; as tests/*.t the m68k guests run them like the rest.
	if [ "$t_arch" = m68k ]; then
		for prog in m68k-tls m68k-vvar m68k-seed-bench; do
			if $abi_cc $cflags -static -pthread -I"$root/include" -o "$build/$t_arch/tests/$prog.t" \
				"$here/$prog.c" "$build/$t_arch/libvdsokit.a" 2>"$prep/$prog.err"; then
				emit "ok - $t_arch: $prog builds with $abi_cc -static"
			else
				emit "not ok - $t_arch: $prog builds with $abi_cc -static"
				sed 's/^/#   /' "$prep/$prog.err"
				rm -f "$build/$t_arch/tests/$prog.t"
			fi
		done
		# Dynamic, against Debian's cross glibc: the guest runs it under
		# that C library and under the patched one (run-target).
		mkdir -p "$build/$t_arch/glibc"
		if $abi_cc $cflags -pthread -o "$build/$t_arch/glibc/m68k-glibc" \
			"$here/m68k-glibc.c" 2>"$prep/m68k-glibc.err"; then
			emit "ok - $t_arch: m68k-glibc builds with $abi_cc (dynamic)"
		else
			emit "not ok - $t_arch: m68k-glibc builds with $abi_cc (dynamic)"
			sed 's/^/#   /' "$prep/m68k-glibc.err"
			rm -f "$build/$t_arch/glibc/m68k-glibc"
		fi
	fi
done
# The kernel's own vDSO selftests, built from the source of the kernel each
# guest boots (linux-source-6.1 or -6.12) for its userland: once per
# userland and kernel series, into $build/qemu/kselftest/ARCH-6.X; each
# target finds its directory (or why there is none) in $prep/kselftest-TARGET.
done_ksft=" "
for t in $known; do
	[ -s "$prep/$t.skip" ] && continue
	target_info "$t"
	series=$(kernel_name "$t" | grep -o '6\.[0-9][0-9]*' | head -n 1)
	if [ -z "$series" ]; then
		echo "skip unknown kernel version of $t" >"$prep/kselftest-$t"
		continue
	fi
	key=$t_arch-$series dir=$build/qemu/kselftest/$t_arch-$series
	case "$done_ksft" in *" $key "*) ;; *)
		done_ksft="$done_ksft$key "
		abi_cc="$t_triple-gcc-12${t_cflags:+ $t_cflags}"
		repair_libm
		CC=$abi_cc "$here/build-selftests" "$t_arch" "/usr/src/linux-source-$series.tar.xz" "$dir" \
			2>"$prep/kselftest-$key.err"
		case $? in
		0) emit "ok - $key: kernel vDSO selftests built ($(ls "$dir" | grep -vc '\.\|^source$') programs; $(ls "$dir" | grep -c '\.skip$') do not build upstream)" ;;
		2) echo "skip $(head -n 1 "$prep/kselftest-$key.err")" >"$prep/kselftest-$key" ;;
		*)
			emit "not ok - $key: kernel vDSO selftests harness (tests/qemu/build-selftests)"
			sed 's/^/#   /' "$prep/kselftest-$key.err"
			echo "skip tests/qemu/build-selftests failed (see above)" >"$prep/kselftest-$key"
			;;
		esac
	;; esac
	if [ -s "$prep/kselftest-$key" ]; then
		cp "$prep/kselftest-$key" "$prep/kselftest-$t"
	else
		echo "dir $dir" >"$prep/kselftest-$t"
	fi
done
# The kernel's vdso_test_clock_getres compares the C library's
# clock_getres with the syscall: static against Debian's glibc (the
# kselftest step) both are the syscall; built dynamically from the 6.12
# source build-selftests extracted, the m68k guests run it under the
# patched glibc too, whose clock_getres is the vDSO's.
if [ -d "$build/m68k/glibc" ] && [ -n "$glibc_targets" ]; then
	abi_cc=m68k-linux-gnu-gcc-12
	ksrc=$(ls -d "$cache"/src/selftests-6.12/*/tools/testing/selftests/vDSO 2>/dev/null | head -n 1)
	rm -f "$build/m68k/glibc/vdso_test_clock_getres"
	if [ -f "$ksrc/vdso_test_clock_getres.c" ] &&
		$abi_cc -O2 -I"$ksrc/.." -o "$build/m68k/glibc/vdso_test_clock_getres" \
			"$ksrc/vdso_test_clock_getres.c" 2>"$prep/ksft-getres-glibc.err"; then
		emit "ok - m68k: vdso_test_clock_getres builds with $abi_cc (dynamic, for glibc)"
	elif [ -f "$ksrc/vdso_test_clock_getres.c" ]; then
		emit "not ok - m68k: vdso_test_clock_getres builds with $abi_cc (dynamic, for glibc)"
		sed 's/^/#   /' "$prep/ksft-getres-glibc.err"
	fi
fi
echo "# phases 1-2 took $(($(date +%s) - started)) s"

# ---- phase 3: boots, VDSOKIT_MATRIX_JOBS at a time -------------------------
# The longest first (targets.sh), then the rest in target order; the
# results below stay in target order.  A name there that is no target would
# silently boot nothing first.
for t in $MATRIX_BOOT_FIRST; do
	target_info "$t" || emit "not ok - MATRIX_BOOT_FIRST in targets.sh names $t, which is no target"
done
boot_order=""
for t in $MATRIX_BOOT_FIRST $known; do
	case " $known " in *" $t "*) ;; *) continue ;; esac
	case " $boot_order " in *" $t "*) ;; *) boot_order="$boot_order $t" ;; esac
done
echo "# phase 3: booting$boot_order"
printf '%s\n' $boot_order | xargs -P "${VDSOKIT_MATRIX_JOBS:-2}" -n 1 "$here/run-target"
for t in $known; do
	echo "# $t: $(grep '^about=' "$build/qemu/$t/summary" 2>/dev/null | cut -d= -f2-)"
	if [ ! -f "$build/qemu/$t/tap" ]; then
		emit "not ok - $t: run-target left a TAP report"
		continue
	fi
	while IFS= read -r line; do
		emit "$line"
	done <"$build/qemu/$t/tap"
done
echo "# matrix took $(($(date +%s) - started)) s; artifacts in $build/qemu/TARGET/"
echo "1..$n"
