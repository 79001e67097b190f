#!/bin/sh
# Every global symbol of libvdsokit.a and every export of libvdsokit.so
# carries the library's prefix, and a program with globals named like the
# kernel selftest's (vdso_clock_gettime, …) links and runs with either.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

foreign=$(nm -g --defined-only "$build/libvdsokit.a" | awk 'NF == 3 { print $3 }' | grep -v '^vdsokit_')
check "every global symbol of libvdsokit.a starts with vdsokit_" [ -z "$foreign" ]
[ -z "$foreign" ] || echo "not prefixed: $(echo $foreign)" | diag
foreign=$(nm -D --defined-only "$build/lib/libvdsokit.so.0" | awk 'NF == 3 && $2 != "A" { print $3 }' |
	sed 's/@.*//' | grep -v '^vdsokit_')
check "every export of libvdsokit.so starts with vdsokit_" [ -z "$foreign" ]
[ -z "$foreign" ] || echo "not prefixed: $(echo $foreign)" | diag

for how in static shared; do
	if [ $how = static ]; then
		lib="$build/libvdsokit.a"
	else
		lib="-L$build/lib -l:libvdsokit.so.0 -Wl,-rpath,$build/lib"
	fi
	# shellcheck disable=SC2086
	if cc -Iinclude -o "$tmp/clash-$how" tests/namespace/clash.c $lib 2>"$tmp/err"; then
		check "a program with globals named vdso_clock_gettime etc. links with libvdsokit ($how)" true
		"$tmp/clash-$how" > "$tmp/out" 2>&1
		check "and runs with its own globals untouched ($how)" grep -q '^ok 2' "$tmp/out"
	else
		check "a program with globals named vdso_clock_gettime etc. links with libvdsokit ($how)" false
		head -3 "$tmp/err" | diag
		check "and runs with its own globals untouched ($how)" false
	fi
done
done_testing
