#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/callpath.c on every architecture with a cross compiler, a static
# libc and qemu-user (natively for x86_64 and i386, which the host runs):
#   1. no vDSO (qemu-user maps none; natively the real one is hidden):
#      every call takes the syscall and agrees with it;
#   2. the architecture's "callable" synthetic image (tests/images) mapped
#      flat and handed to the library with vdsokit_use_image(): the vDSO call
#      path itself (calling convention, time64 preference and 32-bit
#      overflow, powerpc CR0.SO, m68k thread pointer) runs on that
#      architecture;
#   3. arm "only64" (clock_gettime64 without clock_gettime: untrusted),
#      arm "time64only" (the 64-bit entries with clock_getres_time64, as a
#      kernel without COMPAT_32BIT_TIME has them: trusted), i386
#      "time32only" (32-bit entries only) and mips "pre54" (a vDSO from
#      before 5.4 that answers -ENOSYS for a clock: asked once, then the
#      syscall) images;
#   4. the 2026 images of the 32-bit-time ABIs (i386, arm, mips o32 and
#      n32, ppc32): "v70" (Linux 7.0's entries) and "v73y2038" (7.3's
#      without COMPAT_32BIT_TIME: no time32 entry).  qemu-user has no
#      seccomp to count the syscalls with, so the v73y2038 run is made once
#      more under -strace: between callpath's marks, the vDSO's own clocks
#      make no syscall, and no time call makes a 32-bit-time one.
# Each architecture's library and callpath are built here, with that
# architecture's compiler, under $VDSOKIT_BUILD/qemu-user/<arch>.
. "$(dirname "$0")/lib.sh"
images=$build/images
# A library that loops (a _stick call on sparc64) or a wedged emulator must
# not hang the whole check.
run_timeout=${VDSOKIT_QEMU_TIMEOUT:-120}
# The sub-makes are ours, not the outer make's jobserver children.
unset MAKEFLAGS MFLAGS MAKELEVEL

# emit ok|not ok DESCRIPTION
emit() { if [ "$1" = ok ]; then ok "$2"; else not_ok "$2"; fi; }

if [ ! -f "$images/.built" ]; then
	echo "1..0 # SKIP no synthetic images in $images: run make images (make check does)"
	exit 0
fi

# run_tap LABEL COMMAND...: runs a callpath, renumbers its TAP lines into
# ours with LABEL in front, then one more line for how it ended (exit
# status, plan complete) so that a crash or a hang is a failure too.
run_tap() {
	label=$1
	shift
	case "$*" in
	*--image*) phase="image $(basename "$(printf '%s\n' "$*" | sed 's/.*--image \([^ ]*\).*/\1/')")" ;;
	*)         phase="no vDSO" ;;
	esac
	out=$build/qemu-user/last.out
	timeout "$run_timeout" "$@" >"$out" 2>&1
	status=$?
	summary=$(awk -v start="$n" -v label="$label" -v res="$build/qemu-user/last.res" '
		/^ok [0-9]+ # SKIP/ {
			m++
			sub(/^ok [0-9]+ # SKIP */, "")
			printf "ok %d # SKIP %s: %s\n", start + m, label, $0
			next
		}
		/^(not )?ok [0-9]+ - / {
			m++
			nok = ($1 == "not")
			sub(/^(not )?ok [0-9]+ - /, "")
			printf "%s %d - %s: %s\n", nok ? "not ok" : "ok", start + m, label, $0
			if (nok && $0 !~ /# *TODO/) f++
			next
		}
		/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
		/^#/ { print; next }
		{ print "# " $0 }
		END { printf "%d %d %d\n", m, f, plan + 0 > res }' "$out")
	printf '%s\n' "$summary"
	read -r count fails plan <"$build/qemu-user/last.res"
	n=$((n + count))
	failed=$((failed + fails))
	if [ "$status" -eq 124 ]; then
		emit "not ok" "$label, $phase: timed out after ${run_timeout}s (a call that never returns?)"
	elif [ "$status" -ge 128 ]; then
		emit "not ok" "$label, $phase: killed by signal $((status - 128)) after $count checks"
	elif [ "$plan" -eq 0 ] || [ "$plan" -ne "$count" ]; then
		emit "not ok" "$label, $phase: incomplete (plan $plan, $count checks, exit $status)"
	else
		emit ok "$label, $phase: ran to the end ($count checks, exit $status)"
	fi
}

# arch compiler image-dir qemu-binary ("-" = native only) ABI flags ("-" = none)
targets="
x86_64  gcc                             x86_64  -                    -
i386    i686-linux-gnu-gcc-12           i386    qemu-i386-static     -
aarch64 aarch64-linux-gnu-gcc-12        aarch64 qemu-aarch64-static  -
arm     arm-linux-gnueabihf-gcc-12      arm     qemu-arm-static      -
riscv64 riscv64-linux-gnu-gcc-12        riscv64 qemu-riscv64-static  -
ppc32   powerpc-linux-gnu-gcc-12        ppc32   qemu-ppc-static      -
ppc64le powerpc64le-linux-gnu-gcc-12    ppc64le qemu-ppc64le-static  -
ppc64   powerpc64-linux-gnu-gcc-12      ppc64   qemu-ppc64-static    -
s390x   s390x-linux-gnu-gcc-12          s390x   qemu-s390x-static    -
mips64  mips64el-linux-gnuabi64-gcc-12  mips64  qemu-mips64el-static -
mipso32 mips64el-linux-gnuabi64-gcc-12  mipso32 qemu-mipsel-static   -mabi=32
mipsn32 mips64el-linux-gnuabi64-gcc-12  mipsn32 qemu-mipsn32el-static -mabi=n32
sparc64 sparc64-linux-gnu-gcc-12        sparc64 qemu-sparc64-static  -
m68k    m68k-linux-gnu-gcc-12           m68k    qemu-m68k-static     -
"

# strace_window LOG MARK: the syscalls between callpath's /vdsokit-mark/MARK-begin
# and -end in a `qemu -strace` LOG, one per line; those qemu 7.2 has no name
# for (clock_getres_time64) as "Unknown syscall N".
strace_window() {
	awk -v b="/vdsokit-mark/$2-begin" -v e="/vdsokit-mark/$2-end" '
		index($0, e) { inside = 0 }
		inside && /^[0-9]+ ([a-z_0-9]+\(|Unknown syscall)/ { sub(/^[0-9]+ /, ""); print }
		index($0, b) { inside = 1 }' "$1"
}

# y2038_strace LABEL QEMU PROG IMAGE: the v73y2038 image run under -strace.
y2038_strace() {
	log=$build/qemu-user/last.strace
	timeout "$run_timeout" "$2" -strace "$3" --image "$4" v73y2038 >/dev/null 2>"$log"
	if ! grep -q '/vdsokit-mark/no-syscall-end' "$log"; then
		emit "not ok" "$1, image v73y2038 under -strace: callpath reached its marks"
		tail -5 "$log" | sed 's/^/#   /'
		return
	fi
	calls=$(strace_window "$log" no-syscall)
	if [ -z "$calls" ]; then
		emit ok "$1, image v73y2038 under -strace: time, gettimeofday, clock_gettime and clock_getres of the vDSO's clocks make no syscall"
	else
		emit "not ok" "$1, image v73y2038 under -strace: time, gettimeofday, clock_gettime and clock_getres of the vDSO's clocks make no syscall ($(echo "$calls" | wc -l) made)"
		echo "$calls" | sort | uniq -c | head -10 | sed 's/^/#   /'
	fi
	# qemu names the 64-bit ones clock_gettime64 and clock_getres_time64.
	calls=$(strace_window "$log" no-time32-syscall | grep -E '^(clock_gettime|clock_getres|gettimeofday|time)\(')
	if [ -z "$calls" ]; then
		emit ok "$1, image v73y2038 under -strace: no time call, whatever its clock or path, makes a 32-bit-time syscall ($(strace_window "$log" no-time32-syscall | wc -l) syscalls, none of them)"
	else
		emit "not ok" "$1, image v73y2038 under -strace: no time call makes a 32-bit-time syscall ($(echo "$calls" | wc -l) made)"
		echo "$calls" | sort | uniq -c | head -10 | sed 's/^/#   /'
	fi
}

mkdir -p "$build/qemu-user"
echo "$targets" | while read -r arch cc imgdir qemu abi; do
	[ -n "$arch" ] || continue
	echo "$arch $cc $imgdir $qemu $abi"
done >"$build/qemu-user/targets"

while read -r arch cc imgdir qemu abi; do
	[ "$abi" != - ] || abi=
	if ! command -v "$cc" >/dev/null 2>&1; then
		skip "$arch: no compiler $cc"
		continue
	fi
	image=$images/$imgdir/callable.so
	if [ ! -f "$image" ]; then
		skip "$arch: no synthetic image ($(cat "$images/$imgdir/SKIP" 2>/dev/null || echo "not built"))"
		continue
	fi
	bdir=$build/qemu-user/$arch
	log=$bdir.build.log
	case $cc in *-gcc-12) ar=${cc%-gcc-12}-ar ;; *) ar="ar" ;; esac
	if make -C "$top" -s -j2 CC="$cc${abi:+ $abi}" AR="$ar" BUILD="$bdir" LDFLAGS=-static "$bdir/tests/callpath" \
		>"$log" 2>&1; then
		emit ok "$arch: library and callpath build with $cc${abi:+ $abi} -static"
	else
		emit "not ok" "$arch: library and callpath build with $cc${abi:+ $abi} -static"
		tail -20 "$log" | sed 's/^/#   /'
		continue
	fi
	prog=$bdir/tests/callpath

	runners=
	case $arch in x86_64 | i386) runners=native ;; esac
	if [ "$qemu" != - ]; then
		if command -v "$qemu" >/dev/null 2>&1; then
			runners="$runners $qemu"
		else
			skip "$arch: no $qemu"
		fi
	fi
	for runner in $runners; do
		if [ "$runner" = native ]; then
			"$prog" >/dev/null 2>&1
			if [ $? -eq 126 ]; then
				skip "$arch native: this kernel does not execute $arch binaries"
				continue
			fi
			run=
			where="$arch native"
		else
			run=$runner
			where="$arch $runner"
		fi
		run_tap "$where" $run "$prog"
		run_tap "$where" $run "$prog" --image "$image"
		case $arch in
		arm)  run_tap "$where" $run "$prog" --image "$images/arm/only64.so" only64
		      run_tap "$where" $run "$prog" --image "$images/arm/time64only.so" time64only ;;
		i386) run_tap "$where" $run "$prog" --image "$images/i386/time32only.so" time32only ;;
		mips64 | mipsn32 | mipso32)
		      run_tap "$where" $run "$prog" --image "$images/$imgdir/pre54.so" pre54 ;;
		esac
		case $arch in
		i386 | arm | mipso32 | mipsn32 | ppc32)
			run_tap "$where" $run "$prog" --image "$images/$imgdir/v70.so" v70
			run_tap "$where" $run "$prog" --image "$images/$imgdir/v73y2038.so" v73y2038
			[ -z "$run" ] || y2038_strace "$where" "$run" "$prog" "$images/$imgdir/v73y2038.so"
			;;
		esac
	done
done <"$build/qemu-user/targets"

done_testing
