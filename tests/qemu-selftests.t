#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/qemu/build-selftests, the matrix's harness for the kernel's own vDSO
# selftests, without booting anything: usage errors and a missing kernel
# source are refused with the reason; from Debian's linux-source-6.12 it
# builds every vDSO selftest for x86_64 as a static program (or says per
# program why upstream's code does not build); the m68k entry the project
# adds to the extracted vdso_config.h lets vdso_test_abi build for m68k;
# and results-table shows the selftests' column from a guest's summary.
. "$(dirname "$0")/lib.sh"

bs=$top/tests/qemu/build-selftests
src612=${VDSOKIT_TEST_LINUX_SOURCE:-/usr/src/linux-source-6.12.tar.xz}

# bs ARGS...: runs build-selftests, leaving $tmp/out, $tmp/err and $status.
bs() { "$bs" "$@" >"$tmp/out" 2>"$tmp/err"; status=$?; }

if [ ! -x "$bs" ]; then
	not_ok "tests/qemu/build-selftests exists and is executable"
	done_testing
	exit
fi

bs x86_64
expect_status "build-selftests without its three arguments is a usage error" 64
bs vax "$src612" "$tmp/x"
expect_status "build-selftests refuses an unknown ARCH" 64
bs x86_64 "$tmp/linux-source-9.9.tar.xz" "$tmp/x"
if [ "$status" -eq 2 ] && grep -q 'linux-source-9.9' "$tmp/err"; then
	ok "a missing kernel source is a skip (exit 2) naming the tarball"
else
	not_ok "a missing kernel source is a skip (exit 2) naming the tarball (status $status)"
	diag <"$tmp/err"
fi

if [ ! -r "$src612" ]; then
	skip "x86_64 selftests from linux-source-6.12: $src612 is absent (Debian package linux-source-6.12)"
elif ! have x86_64-linux-gnu-gcc-12; then
	skip "x86_64 selftests from linux-source-6.12: no x86_64-linux-gnu-gcc-12"
else
	CC=x86_64-linux-gnu-gcc-12 bs x86_64 "$src612" "$tmp/k"
	expect_status "build-selftests x86_64 linux-source-6.12 runs" 0
	# Every vDSO selftest 6.12 has, x86's standalone one included: built,
	# or a .skip that says why in one line.
	bad=""
	for p in vdso_test_gettimeofday vdso_test_getcpu vdso_test_abi vdso_test_clock_getres \
		vdso_test_correctness vdso_standalone_test_x86 vdso_test_getrandom vdso_test_chacha; do
		if [ -f "$tmp/k/$p" ]; then
			file "$tmp/k/$p" | grep -q 'statically linked' || bad="$bad $p(not static)"
		elif [ -s "$tmp/k/$p.skip" ]; then
			:
		else
			bad="$bad $p(neither built nor skipped)"
		fi
	done
	if [ -z "$bad" ]; then
		ok "every 6.12 vDSO selftest is a static x86_64 program or a stated skip"
	else
		not_ok "every 6.12 vDSO selftest is a static x86_64 program or a stated skip:$bad"
	fi
	# Debian's own 6.12 source builds the abi test for x86_64: if it
	# does not, the harness's flags are wrong, not upstream's code.
	if [ -f "$tmp/k/vdso_test_abi" ] && [ ! -e "$tmp/k/vdso_test_abi.skip" ]; then
		ok "vdso_test_abi builds for x86_64"
	else
		not_ok "vdso_test_abi builds for x86_64"
		diag <"$tmp/k/vdso_test_abi.skip" 2>/dev/null
	fi
	# On this x86_64 host it runs and speaks kselftest TAP.
	if [ -x "$tmp/k/vdso_test_abi" ]; then
		"$tmp/k/vdso_test_abi" >"$tmp/abi.out" 2>&1
		st=$?
		if { [ $st -eq 0 ] || [ $st -eq 4 ]; } && grep -q '^ok [0-9]' "$tmp/abi.out"; then
			ok "vdso_test_abi runs on this host and prints kselftest TAP (exit $st)"
		else
			not_ok "vdso_test_abi runs on this host and prints kselftest TAP (exit $st)"
			tail -n 5 "$tmp/abi.out" | diag
		fi
	fi
	if have m68k-linux-gnu-gcc-12; then
		CC=m68k-linux-gnu-gcc-12 bs m68k "$src612" "$tmp/m"
		if [ -f "$tmp/m/vdso_test_abi" ]; then
			ok "with the project's vdso_config.h entry, vdso_test_abi builds for m68k"
		else
			not_ok "with the project's vdso_config.h entry, vdso_test_abi builds for m68k"
			diag <"$tmp/m/vdso_test_abi.skip" 2>/dev/null
		fi
	else
		skip "vdso_test_abi for m68k: no m68k-linux-gnu-gcc-12"
	fi
fi

# ---- results-table's column, on a made-up guest summary -------------------
if ! have jq; then
	skip "results-table's selftests column: jq is not installed"
else
	q=$tmp/build/qemu/amd64
	mkdir -p "$q"
	cat >"$q/summary" <<-EOF
	target=amd64
	about=made up for the test
	kernel=linux-image-6.1.0-test 6.1.0-1
	boot=ok
	verify=pass
	kselftest.vdso_test_abi=pass
	kselftest.vdso_test_getcpu=skip
	kselftest.vdso_test_correctness=todo
	kselftest=1 pass, 1 skip, 1 todo
	EOF
	"$top/tests/qemu/results-table" "$tmp/build" matrix >"$tmp/table.md" 2>&1
	if grep -q '| kernel vDSO selftests |' "$tmp/table.md" &&
		grep '^| amd64 |' "$tmp/table.md" | grep -q '1 pass, 1 skip, 1 todo (`vdso_test_correctness`)'; then
		ok "results-table shows the guest's selftests, naming the one marked TODO"
	else
		not_ok "results-table shows the guest's selftests, naming the one marked TODO"
		diag <"$tmp/table.md"
	fi
fi
done_testing
