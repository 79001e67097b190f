#!/bin/sh
# SPDX-License-Identifier: MIT
# make install into a DESTDIR, then build a program against the installed
# header and libraries through vdsokit.pc, static and shared, and run both.
cd "$(dirname "$0")/.." || exit 1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
n=0
t() { n=$((n + 1)); if eval "$2" >"$dest/log" 2>&1; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$dest/log" | tail -15; fi; }

t "make install PREFIX=/usr DESTDIR=..." "make -s install PREFIX=/usr DESTDIR=$dest"
t "header, static and shared library, pkg-config file installed" \
  "test -f $dest/usr/include/vdsokit.h && test -f $dest/usr/lib/libvdsokit.a && test -f $dest/usr/lib/libvdsokit.so.0 && test -L $dest/usr/lib/libvdsokit.so && test -f $dest/usr/lib/pkgconfig/vdsokit.pc"
t "man pages installed" "test -f $dest/usr/share/man/man3/libvdsokit.3"
cat >"$dest/prog.c" <<'C'
#include <vdsokit.h>
#include <stdio.h>
int main(void)
{
	struct vdsokit_timespec ts;
	struct vdsokit_route_info p;
	if (vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 1;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
	printf("%s %lld\n", vdsokit_route_name(p.route), (long long)ts.tv_sec);
	return 0;
}
C
flags="PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig"
t "pkg-config knows vdsokit" "env $flags pkg-config --exists vdsokit"
t "a program builds against the shared library" \
  "cc -o $dest/prog-shared $dest/prog.c \$(env $flags pkg-config --cflags --libs vdsokit)"
t "and runs" "LD_LIBRARY_PATH=$dest/usr/lib $dest/prog-shared"
t "a program builds against the static library" \
  "cc -o $dest/prog-static $dest/prog.c \$(env $flags pkg-config --cflags vdsokit) $dest/usr/lib/libvdsokit.a"
t "and runs" "$dest/prog-static"
t "the shared library exports only the versioned API" \
  "! nm -D --defined-only $dest/usr/lib/libvdsokit.so.0 | grep -v -e ' vdso_' -e ' vdso__' -e 'VDSOKIT_' | grep ' [TDB] '"
echo "1..$n"
