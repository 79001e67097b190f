# SPDX-License-Identifier: MIT
# targets.sh — the QEMU matrix's targets, sourced by the scripts beside it.
#
# target_info TARGET sets, for one target:
#   t_arch      the cross-build name: the library is built into $(BUILD)/$t_arch
#   t_triple    cross compiler prefix (the compiler is $t_triple-gcc-12)
#   t_cflags    extra compiler flags that pick the userland's ABI from a
#               multilib compiler (mips64el -mabi=32/n32, sparc64 -m32);
#               empty for a compiler whose default is the userland
#   t_kernel    how the kernel is obtained: "fetch DEBARCH" (Debian package,
#               tests/qemu/fetch-kernels) or "build ARCH" (tests/qemu/build-kernel)
#   t_qemu      QEMU binary and machine options (without kernel/initrd/append)
#   t_append    kernel command line
#   t_machine   what `uname -m` must say in the guest (proves we booted the
#               right architecture, not a host binary by accident); for a
#               compat userland (i386 on amd64, armhf on arm64) the kernel's
#               machine, which a static compat binary's uname reports
#   t_about     one line for reports: machine and what the target exercises
#   t_todo      awk regex of guest test descriptions that fail because of a
#               known, reported bug (the library's, or an upstream kernel
#               selftest's), and t_todo_why the reason: those
#               stay "not ok" with "# TODO reason" (tests/qemu/run-target)
#   t_boot_timeout  seconds the guest's plan may take, where 300 (the
#               default, VDSOKIT_BOOT_TIMEOUT) is too short under emulation
# and returns 1 for an unknown target.

# amd64-i386, arm64-armhf, mips64el-o32/n32 and sparc64-sparc32 boot the
# kernel of their first half and run a compat userland in it, which the
# kernel serves a vDSO of its own (vdso32, the compat vDSO, vdso-o32/n32).
MATRIX_TARGETS="arm64 armhf ppc64le s390x mips64el amd64 amd64-hpet amd64-novdso m68k sparc64 amd64-i386 arm64-armhf mips64el-o32 mips64el-n32 sparc64-sparc32 amd64-x32 amd64-6.12 arm64-6.12 riscv64 ppc64 ppc32"
# m68k-vdso: the q800 kernel with the project's m68k vDSO series
# (tests/qemu/kernel/m68k-vdso/), beside m68k, mainline's without one.
MATRIX_TARGETS="$MATRIX_TARGETS m68k-vdso"
# y2038-i386, y2038-x32: an x86_64 kernel without the 32-bit-time system
# calls (CONFIG_COMPAT_32BIT_TIME off, tests/qemu/kernel/y2038/config), with
# the userlands of amd64-i386 and amd64-x32.
MATRIX_TARGETS="$MATRIX_TARGETS y2038-i386 y2038-x32"
# The guests that take longest, booted first, so that the last guest to
# start is a short one and both cores stay busy to the end.  The cold run at
# 9f1b115 booted in target order and ended on m68k-vdso (72 s) alone, one
# core idle; arm64-6.12 took 73 s, amd64-6.12 58, m68k 50, amd64-x32 38,
# the other seventeen 8-30 s.
MATRIX_BOOT_FIRST="m68k-vdso arm64-6.12 amd64-6.12 m68k amd64-x32"

# " tsc_early_khz=N": the host's TSC rate, where /proc/cpuinfo gives it (an
# x86 host whose TSC has a constant, known rate, as on a VM); else nothing.
host_tsc_khz() {
	awk '/^flags/ && / constant_tsc/ && / tsc_known_freq/ { c = 1 }
		/^cpu MHz/ && m == "" { m = $4 }
		END { if (c && m > 0) printf " tsc_early_khz=%d", m * 1000 }' /proc/cpuinfo 2>/dev/null
}

target_info() {
	t_append_extra="" t_cflags="" t_todo="" t_todo_why="" t_boot_timeout=""
	case $1 in
	arm64 | arm64-6.12 | arm64-armhf)
		t_arch=aarch64 t_triple=aarch64-linux-gnu t_kernel="fetch arm64"
		t_qemu="qemu-system-aarch64 -M virt -cpu cortex-a72 -m 512"
		t_console=ttyAMA0 t_machine=aarch64
		case $1 in
		arm64) t_about="QEMU virt, cortex-a72" ;;
		arm64-6.12)
			t_kernel="fetch arm64-6.12"
			# The vDSO's getrandom: the lifecycle tests and the chacha
			# selftest run in full, 300 s and more under a loaded host.
			t_boot_timeout=600
			t_about="QEMU virt, cortex-a72, Debian 6.12 (__kernel_getrandom)"
			;;
		arm64-armhf)
			t_arch=armhf t_triple=arm-linux-gnueabihf
			t_about="QEMU virt, cortex-a72, armhf static userland (CONFIG_COMPAT_VDSO)"
			# arm64's compat layer has no get_tls (0xf0006): the library
			# must report no syscall record (NULL), not -ENOSYS as a pointer.
			;;
		esac
		;;
	armhf)
		t_arch=armhf t_triple=arm-linux-gnueabihf t_kernel="fetch armhf"
		t_qemu="qemu-system-arm -M virt -cpu cortex-a15 -m 512"
		t_console=ttyAMA0 t_machine=armv7l
		t_about="QEMU virt, cortex-a15 (LPAE kernel)"
		;;
	ppc64le)
		t_arch=ppc64le t_triple=powerpc64le-linux-gnu t_kernel="fetch ppc64el"
		t_qemu="qemu-system-ppc64 -M pseries -m 1024"
		t_console=hvc0 t_machine=ppc64le
		t_about="QEMU pseries"
		t_todo="kselftest vdso_test_correctness: whole program"
		t_todo_why="6.1's selftest calls the powerpc vDSO as a plain C function and reads its positive errno (CR0.SO set) as a wrong answer for invalid clocks; 6.12's calls it through vdso_call.h"
		;;
	s390x)
		t_arch=s390x t_triple=s390x-linux-gnu t_kernel="fetch s390x"
		t_qemu="qemu-system-s390x -M s390-ccw-virtio -m 512"
		t_console=ttysclp0 t_machine=s390x
		t_about="QEMU s390-ccw-virtio"
		;;
	mips64el | mips64el-o32 | mips64el-n32)
		t_arch=mips64el t_triple=mips64el-linux-gnuabi64 t_kernel="fetch mips64el"
		t_qemu="qemu-system-mips64el -M malta -cpu 5KEc -m 512"
		t_console=ttyS0 t_machine=mips64
		t_about="QEMU malta, 5KEc"
		case $1 in
		mips64el-o32 | mips64el-n32)
			t_abi=${1#mips64el-}
			t_arch=mips-$t_abi t_cflags="-mabi=${t_abi#o}"
			t_about="QEMU malta, 5KEc, mips $t_abi static userland (the kernel's vdso-$t_abi)"
			;;
		esac
		;;
	amd64 | amd64-hpet | amd64-novdso | amd64-6.12 | amd64-i386 | amd64-x32)
		t_arch=x86_64 t_triple=x86_64-linux-gnu t_kernel="fetch amd64"
		t_qemu="qemu-system-x86_64 -m 512"
		t_console=ttyS0 t_machine=x86_64
		case $1 in
		amd64) t_about="QEMU pc" ;;
		# Debian's 6.12 generic kernel: getrandom in the vDSO, and the
		# x32 ABI (X86_X32_ABI, off until syscall.x32=y; the cloud
		# flavour has none).
		amd64-6.12)
			t_kernel="fetch amd64-6.12"
			t_boot_timeout=600 # as arm64-6.12: 272 s of 300 under load
			t_about="QEMU pc, Debian 6.12 (__vdso_getrandom)"
			;;
		amd64-x32)
			t_arch=x32 t_triple=x86_64-linux-gnux32 t_kernel="fetch amd64-6.12"
			t_append_extra="syscall.x32=y"
			t_about="QEMU pc, syscall.x32=y, x32 static userland (the kernel's vdsox32)"
			;;
		amd64-i386)
			t_arch=i386 t_triple=i686-linux-gnu
			t_about="QEMU pc, i386 static userland (the kernel's vdso32)"
			;;
		amd64-hpet)
			t_append_extra="clocksource=hpet"
			t_about="QEMU pc, clocksource=hpet (vDSO present, falls back inside)"
			# hpet has no vDSO clock mode: the vDSO's time calls make
			# the syscall themselves (zero-syscalls.t expects one each).
			;;
		amd64-novdso)
			t_append_extra="vdso=0"
			t_about="QEMU pc, vdso=0 (no vDSO)"
			t_todo="kselftest vdso_standalone_test_x86: whole program"
			t_todo_why="6.1's selftest exits 1, silently, when it finds no __vdso_gettimeofday (no skip path): upstream's test, not the kernel or the library"
			;;
		esac
		;;
	m68k)
		t_arch=m68k t_triple=m68k-linux-gnu t_kernel="build m68k"
		t_qemu="qemu-system-m68k -M q800 -m 256"
		t_console=ttyS0 t_machine=m68k
		t_about="QEMU q800 (Quadra 800), linux-source-6.1 allnoconfig + fragment + the via1 clocksource fix"
		;;
	m68k-vdso)
		t_arch=m68k t_triple=m68k-linux-gnu t_kernel="build m68k-vdso"
		t_qemu="qemu-system-m68k -M q800 -m 256"
		t_console=ttyS0 t_machine=m68k
		t_about="QEMU q800 (Quadra 800), linux-source-6.12 allnoconfig + fragment + the m68k vDSO series + the via1 clocksource fix"
		;;
	sparc64 | sparc64-sparc32)
		t_arch=sparc64 t_triple=sparc64-linux-gnu t_kernel="build sparc64"
		t_qemu="qemu-system-sparc64 -M sun4u -m 512"
		t_console=ttyS0 t_machine=sparc64
		t_about="QEMU sun4u, linux-source-6.1 allnoconfig + fragment"
		if [ "$1" = sparc64-sparc32 ]; then
			t_arch=sparc32 t_cflags=-m32
			t_about="QEMU sun4u, linux-source-6.1 allnoconfig + fragment, sparc32 static userland (vdso32)"
		fi
		;;
	# Built here from linux-source-6.12, allnoconfig plus a small fragment
	# (tests/qemu/kernel/ARCH/config): Debian ships no such kernels.
	riscv64)
		t_arch=riscv64 t_triple=riscv64-linux-gnu t_kernel="build riscv64"
		t_qemu="qemu-system-riscv64 -M virt -m 512"
		t_console=ttyS0 t_machine=riscv64
		t_about="QEMU virt (OpenSBI), linux-source-6.12 allnoconfig + fragment"
		;;
	ppc64)
		t_arch=ppc64 t_triple=powerpc64-linux-gnu t_kernel="build ppc64"
		t_qemu="qemu-system-ppc64 -M pseries -m 1024"
		t_console=hvc0 t_machine=ppc64
		t_about="QEMU pseries, big-endian, linux-source-6.12 allnoconfig + fragment"
		;;
	ppc32)
		t_arch=ppc t_triple=powerpc-linux-gnu t_kernel="build ppc32"
		t_qemu="qemu-system-ppc -M mac99 -m 512"
		t_console=ttyPZ0 t_machine=ppc
		t_about="QEMU mac99 (PowerMac G4), linux-source-6.12 allnoconfig + fragment"
		;;
	y2038-i386 | y2038-x32)
		t_kernel="build y2038"
		t_qemu="qemu-system-x86_64 -m 512"
		t_console=ttyS0 t_machine=x86_64
		# The TSC, which the vDSO reads.  Without ACPI the kernel has no
		# HPET or PM timer to calibrate it against, and under TCG the PIT
		# alone fails ("tsc: Unable to calibrate against PIT"): it would
		# run on jiffies, which the vDSO cannot read.  TCG's guest TSC is
		# the host's counter (measured: 5.0 s of guest CLOCK_MONOTONIC in
		# 5.0 s), so the host's rate is given where the host tells it; and
		# with tsc=reliable no clocksource watchdog can take the TSC away
		# from a loaded guest, so the paths measured do not depend on load.
		t_append_extra="tsc=reliable$(host_tsc_khz)"
		if [ "$1" = y2038-i386 ]; then
			t_arch=i386 t_triple=i686-linux-gnu
			t_about="QEMU pc, linux-source-6.12 allnoconfig + fragment without COMPAT_32BIT_TIME, i386 static userland (vdso32)"
			# What needs the 32-bit-time syscalls this kernel lacks:
			# upstream's selftests compare the vDSO's clock_getres
			# with SYS_clock_getres, 32-bit time on i386 (ENOSYS,
			# ignored: the resolution they print is the stack's).
			t_todo="kselftest vdso_test_abi: __vdso_clock_getres|kselftest vdso_test_clock_getres: whole program"
			t_todo_why="no 32-bit-time syscalls here: the 6.12 selftests' reference is SYS_clock_getres (32-bit time, ENOSYS)"
		else
			t_arch=x32 t_triple=x86_64-linux-gnux32
			t_about="QEMU pc, linux-source-6.12 allnoconfig + fragment without COMPAT_32BIT_TIME, x32 static userland (vdsox32)"
		fi
		;;
	*)
		return 1
		;;
	esac
	# quiet: kernel chatter would interleave with the guest's report.
	t_append="console=$t_console panic=-1 quiet${t_append_extra:+ $t_append_extra}"
	return 0
}

# kernel_path TARGET: where the cached kernel of a target lives (it may not
# exist yet; tests/qemu/fetch-kernels and build-kernel create it).
kernel_path() {
	target_info "$1" || return 1
	cache=${VDSOKIT_CACHE:-$HOME/.cache/vdsokit}
	set -- $t_kernel
	case $1 in
	fetch) echo "$cache/kernels/$2/kernel" ;;
	build)
		# build-kernel names the file as the kernel build does.
		case $2 in
		riscv64) echo "$cache/kernels/$2/Image" ;;
		y2038) echo "$cache/kernels/$2/bzImage" ;;
		*) echo "$cache/kernels/$2/vmlinux" ;;
		esac
		;;
	esac
}

# kernel_name TARGET: the kernel's package and version, or how it was built.
kernel_name() {
	target_info "$1" || return 1
	cache=${VDSOKIT_CACHE:-$HOME/.cache/vdsokit}
	set -- $t_kernel
	case $1 in
	fetch) cat "$cache/kernels/$2/package" 2>/dev/null ;;
	build)
		cat "$cache/kernels/$2/package" 2>/dev/null ||
			echo "linux-source-6.1 $(cat "$cache/kernels/$2/source-version" 2>/dev/null) (built here)"
		;;
	esac
}
