#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian packages (debian/): `make deb` builds libvdsokit1,
# libvdsokit-dev and vdsokit with dpkg-buildpackage -us -uc -b from a copy
# of the tree; unpacked into a scratch root (dpkg-deb -x), each holds its
# files, a program builds through pkg-config against the -dev package and
# runs on its library, the packaged `vdsokit report` runs, the symbols file
# is the library's exports and dh_makeshlibs fails on any difference, and
# lintian reports no error or warning.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

for tool in dpkg-buildpackage dpkg-deb dh lintian pkg-config cc; do
	if ! have "$tool"; then
		echo "1..0 # SKIP $tool not installed (scripts/install-deps: dpkg-dev, debhelper, lintian, pkg-config)"
		exit 0
	fi
done
if [ ! -d debian ]; then
	not_ok "debian/ exists"
	done_testing
	exit
fi

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(dpkg-parsechangelog -S Version)
upstream=${version%-*}
out=$tmp/b/deb
root=$tmp/root
libdir=usr/lib/$ma

# The build compiles the tree once (about a minute on 2 cores).
if make --no-print-directory -s deb BUILD="$tmp/b" >"$tmp/build.out" 2>&1; then
	ok "make deb: dpkg-buildpackage -us -uc -b ($version)"
else
	not_ok "make deb: dpkg-buildpackage -us -uc -b"
	diag <"$tmp/build.out"
	done_testing
	exit
fi

for p in libvdsokit1 libvdsokit-dev vdsokit; do
	deb=$(ls "$out/${p}_${version}_"*.deb 2>/dev/null | head -1)
	if [ -n "$deb" ] && dpkg-deb -x "$deb" "$root" && dpkg-deb -c "$deb" >"$tmp/$p.list"; then
		ok "$p: built and unpacked ($(basename "$deb"))"
	else
		not_ok "$p: no ${p}_${version}_*.deb in $out, or it does not unpack"
		ls "$out" | diag
	fi
done

# has PACKAGE PATH...: each PATH is in PACKAGE's file list.
has() {
	p=$1
	shift
	awk '{ sub(/^\.\//, "", $6); print $6 }' "$tmp/$p.list" >"$tmp/$p.paths"
	missing=""
	for f in "$@"; do
		grep -Fxq "$f" "$tmp/$p.paths" || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		ok "$p holds $*"
	else
		not_ok "$p lacks$missing"
		diag <"$tmp/$p.paths"
	fi
}
has libvdsokit1 "$libdir/libvdsokit.so.1"
has libvdsokit-dev usr/include/vdsokit.h "$libdir/libvdsokit.a" "$libdir/libvdsokit.so" \
	"$libdir/pkgconfig/vdsokit.pc" usr/share/man/man3/libvdsokit.3.gz
has vdsokit usr/bin/vdsokit usr/share/man/man1/vdsokit.1.gz

# What `make install` installs, each file in exactly one package (man pages
# compressed by dh_compress): the bash completion and every man page too,
# whichever of them this tree installs.
make --no-print-directory -s install BUILD="$build" PREFIX=/usr LIBDIR="/$libdir" DESTDIR="$tmp/inst" >"$tmp/inst.out" 2>&1 ||
	diag <"$tmp/inst.out"
(cd "$tmp/inst" && find . ! -type d) | sed -E 's|^\./||; s|^(usr/share/man/.*)$|\1.gz|' | sort >"$tmp/installed"
cat "$tmp/libvdsokit1.list" "$tmp/libvdsokit-dev.list" "$tmp/vdsokit.list" |
	awk '$1 !~ /^d/ { sub(/^\.\//, "", $6); print $6 }' | sort >"$tmp/packaged"
comm -23 "$tmp/installed" "$tmp/packaged" >"$tmp/unpackaged"
if [ -s "$tmp/installed" ] && [ ! -s "$tmp/unpackaged" ] && [ -z "$(uniq -d "$tmp/packaged")" ]; then
	ok "each of the $(wc -l <"$tmp/installed") files make install installs is in one package"
else
	not_ok "make install's files and the packages' differ"
	{ echo "installed, not packaged:"; cat "$tmp/unpackaged"; echo "in two packages:"; uniq -d "$tmp/packaged"; } | diag
fi

so=$root/$libdir/libvdsokit.so.1
soname=$(objdump -p "$so" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" = libvdsokit.so.1 ]; then ok "SONAME libvdsokit.so.1"; else not_ok "SONAME '$soname', want libvdsokit.so.1"; fi

# The -dev package through pkg-config, found in the scratch root only
# (PKG_CONFIG_LIBDIR replaces the system's search path).
pc() { PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/$libdir/pkgconfig pkg-config "$@"; }
cflags=$(pc --cflags vdsokit 2>"$tmp/pc.err")
libs=$(pc --libs vdsokit 2>>"$tmp/pc.err")
modversion=$(pc --modversion vdsokit 2>>"$tmp/pc.err")
case "$cflags $libs" in
*"-I$root/usr/include"*"-L$root/$libdir"*)
	if [ "$modversion" = "$upstream" ]; then
		ok "pkg-config --cflags --libs vdsokit: $cflags $libs (version $modversion)"
	else
		not_ok "pkg-config --modversion vdsokit: '$modversion', want $upstream"
	fi
	;;
*)
	not_ok "pkg-config --cflags --libs vdsokit names the scratch root: '$cflags $libs'"
	diag <"$tmp/pc.err"
	;;
esac

# The header's inline calls read vdsokit__routes_v3, the library's
# exported data: the program uses both.
cat >"$tmp/prog.c" <<'C'
#include <vdsokit.h>
#include <stdio.h>
int main(void)
{
	struct vdsokit_timespec ts;
	struct vdsokit_route_info p;
	int err = vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	if (err != 0) {
		fprintf(stderr, "vdsokit_clock_gettime: %d\n", err);
		return 1;
	}
	if (vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p) != 0)
		return 1;
	printf("monotonic %lld s via %s\n", (long long)ts.tv_sec, vdsokit_route_name(p.route));
	return 0;
}
C
# shellcheck disable=SC2086
if cc -o "$tmp/prog" "$tmp/prog.c" $cflags $libs >"$tmp/cc.out" 2>&1; then
	ok "a program builds against libvdsokit-dev through pkg-config"
	LD_LIBRARY_PATH=$root/$libdir "$tmp/prog" >"$tmp/prog.out" 2>&1
	status=$?
	LD_LIBRARY_PATH=$root/$libdir ldd "$tmp/prog" >"$tmp/ldd.out" 2>&1
	if [ "$status" -eq 0 ] && grep -q "libvdsokit\.so\.1 => $so " "$tmp/ldd.out"; then
		ok "and runs on libvdsokit1's library: $(cat "$tmp/prog.out")"
	else
		not_ok "the program runs on $so (exit $status)"
		cat "$tmp/prog.out" "$tmp/ldd.out" | diag
	fi
else
	not_ok "a program builds against libvdsokit-dev through pkg-config"
	diag <"$tmp/cc.out"
fi
# shellcheck disable=SC2086
if cc -o "$tmp/prog-static" "$tmp/prog.c" $cflags "$root/$libdir/libvdsokit.a" >"$tmp/cc.out" 2>&1 &&
	"$tmp/prog-static" >"$tmp/prog.out" 2>&1; then
	ok "and against the packaged static library: $(cat "$tmp/prog.out")"
else
	not_ok "a program builds against libvdsokit.a and runs"
	cat "$tmp/cc.out" "$tmp/prog.out" | diag
fi

# The packaged CLI.
"$root/usr/bin/vdsokit" report >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 0 ] && grep -q '^vdsokit report' "$tmp/out"; then
	ok "the packaged vdsokit report runs ($(wc -l <"$tmp/out") lines)"
else
	not_ok "the packaged vdsokit report (exit $status)"
	diag <"$tmp/err"
fi
v=$("$root/usr/bin/vdsokit" --version 2>&1)
case $v in
"vdsokit $upstream "*) ok "vdsokit --version is debian/changelog's upstream version: $v" ;;
*) not_ok "vdsokit --version '$v', debian/changelog says $upstream" ;;
esac

# The symbols file lists exactly the version map's exports.
sed -n '/global:/,/local:/p' src/libvdsokit.map | sed -n 's/^[[:space:]]*\([a-z_0-9]*\);.*/\1/p' | sort >"$tmp/map"
sed -n 's/^ \([a-z_0-9]*\)@VDSOKIT_[0-9.]* .*/\1/p' debian/libvdsokit1.symbols | sort >"$tmp/symbols"
if [ -s "$tmp/map" ] && cmp -s "$tmp/map" "$tmp/symbols"; then
	ok "debian/libvdsokit1.symbols lists the $(wc -l <"$tmp/map") exports of src/libvdsokit.map"
else
	not_ok "debian/libvdsokit1.symbols and src/libvdsokit.map differ (<: map, >: symbols)"
	diff "$tmp/map" "$tmp/symbols" | diag
fi

# dh_makeshlibs with debian/rules' settings on the packaged library and a
# symbols file one symbol off either way: the build must stop.
mkdir -p "$tmp/src"
cp -r debian "$tmp/src/"
dpkg-deb -x "$(ls "$out"/libvdsokit1_"$version"_*.deb | head -1)" "$tmp/src/debian/libvdsokit1"
# dh_makeshlibs sets the owner of what it writes to root: under fakeroot
# unless root, as dpkg-buildpackage runs debian/rules' binary targets.
as_root=
if [ "$(id -u)" != 0 ]; then
	as_root=fakeroot
	if ! have fakeroot; then
		skip "dh_makeshlibs checks: not root, and fakeroot is not installed (scripts/install-deps)"
		as_root=false
	fi
fi
makeshlibs() {
	rm -rf "$tmp/src/debian/libvdsokit1/DEBIAN"
	(cd "$tmp/src" && $as_root make -s -f debian/rules --eval 'symbols-check: ; dh_makeshlibs -plibvdsokit1' \
		symbols-check) >"$tmp/makeshlibs.out" 2>&1
}
if [ "$as_root" = false ]; then
	:
elif makeshlibs; then
	ok "dh_makeshlibs accepts the library with debian/libvdsokit1.symbols"
else
	not_ok "dh_makeshlibs with debian/libvdsokit1.symbols"
	diag <"$tmp/makeshlibs.out"
fi
grep -v ' vdsokit_time_via@' debian/libvdsokit1.symbols >"$tmp/src/debian/libvdsokit1.symbols"
if [ "$as_root" = false ]; then
	:
elif makeshlibs; then
	not_ok "dh_makeshlibs accepts an export missing from the symbols file"
else
	ok "dh_makeshlibs fails on an export missing from the symbols file: $(grep -m1 'error:' "$tmp/makeshlibs.out")"
fi
{ cat debian/libvdsokit1.symbols; echo " vdsokit_gone@VDSOKIT_0.5 0.5.0"; } >"$tmp/src/debian/libvdsokit1.symbols"
if [ "$as_root" = false ]; then
	:
elif makeshlibs; then
	not_ok "dh_makeshlibs accepts a symbol the library no longer exports"
else
	ok "dh_makeshlibs fails on a symbol the library no longer exports: $(grep -m1 'error:' "$tmp/makeshlibs.out")"
fi

# lintian on the build's .changes (the three packages and their -dbgsym):
# no error nor warning; info and pedantic tags are shown, not failed on.
changes=$(ls "$out"/*.changes 2>/dev/null | head -1)
lintian -I --pedantic --fail-on error,warning "$changes" >"$tmp/lintian.out" 2>"$tmp/lintian.err"
status=$?
tags=$(grep -c '^[EWIPX]: ' "$tmp/lintian.out")
if [ -n "$changes" ] && [ "$status" -eq 0 ] && ! grep -q '^[EW]: ' "$tmp/lintian.out"; then
	ok "lintian: no error or warning ($tags info or pedantic tags)"
	diag <"$tmp/lintian.out"
else
	not_ok "lintian $(basename "${changes:-no .changes}") (exit $status)"
	cat "$tmp/lintian.out" "$tmp/lintian.err" | diag
fi

done_testing
