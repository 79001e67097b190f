#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/qemu/matrix.t's kernel phase when a kernel cannot be had, with two
# targets on one kernel (sparc64, sparc64-sparc32) and an empty cache:
# a missing source package is SKIP for both targets and no failure; a
# kernel that fails to build is one `not ok` and SKIP for both targets.
# No kernel is built and no guest boots: the source is missing, or a
# made-up tarball that make cannot configure.
. "$(dirname "$0")/lib.sh"
# Whatever matrix the caller chose (VDSOKIT_MATRIX=0 skips it) is not this one.
unset VDSOKIT_MATRIX

matrix() { # TARBALL NAME
	VDSOKIT_LINUX_SOURCE=$1 VDSOKIT_CACHE=$tmp/cache-$2 \
		VDSOKIT_MATRIX_TARGETS="sparc64 sparc64-sparc32" \
		"$top/tests/qemu/matrix.t" --build "$tmp/build-$2" >"$tmp/$2.tap" 2>&1
	tap=$tmp/$2.tap
}

matrix /nonexistent/linux-source.tar.xz missing
[ "$(grep -c '^ok [0-9]* - sparc64\(-sparc32\)\?: boot under QEMU # SKIP no sparc64 kernel: .*no kernel source /nonexistent/linux-source.tar.xz' "$tap")" = 2 ] &&
	! grep -q '^not ok' "$tap" &&
	ok "no kernel source: both targets on that kernel SKIP with the reason, nothing fails" ||
	{ not_ok "no kernel source: both targets on that kernel SKIP with the reason, nothing fails"; diag <"$tap"; }

if ! have sparc64-linux-gnu-gcc-12 || ! have sparc64-linux-gnu-ld; then
	skip "a kernel that fails to build: no sparc64 cross compiler here"
else
	mkdir -p "$tmp/linux-made-up"
	echo "not a kernel" >"$tmp/linux-made-up/README"
	tar -cJf "$tmp/made-up.tar.xz" -C "$tmp" linux-made-up
	matrix "$tmp/made-up.tar.xz" broken
	[ "$(grep -c '^not ok [0-9]* - sparc64: kernel builds$' "$tap")" = 1 ] &&
		[ "$(grep -c '^ok [0-9]* - sparc64\(-sparc32\)\?: boot under QEMU # SKIP the sparc64 kernel failed to build' "$tap")" = 2 ] &&
		ok "a kernel that fails to build: one not ok, both targets SKIP" ||
		{ not_ok "a kernel that fails to build: one not ok, both targets SKIP"; diag <"$tap"; }
fi
done_testing
