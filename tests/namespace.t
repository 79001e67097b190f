#!/bin/sh
# SPDX-License-Identifier: MIT
# Every global symbol of libvdsokit.a and every export of libvdsokit.so
# carries the library's prefix, and a program with globals named like the
# kernel selftest's (vdso_clock_gettime, …) links and runs with either.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

# prefixed DESCRIPTION NM_ARGS...: every symbol nm lists starts with vdsokit_
# (nm must succeed: a missing library is a failure, not an empty list).
prefixed() {
	what=$1
	shift
	if ! nm "$@" >"$tmp/nm" 2>&1; then
		not_ok "$what: nm $* failed"
		diag <"$tmp/nm"
		return
	fi
	foreign=$(awk 'NF == 3 && $2 != "A" { print $3 }' "$tmp/nm" | sed 's/@.*//' | grep -v '^vdsokit_')
	symbols=$(awk 'NF == 3' "$tmp/nm" | wc -l)
	if [ "$symbols" -gt 0 ] && [ -z "$foreign" ]; then
		ok "$what ($symbols symbols)"
	else
		not_ok "$what ($symbols symbols)"
		echo "not prefixed: $(echo $foreign)" | diag
	fi
}
prefixed "every global symbol of libvdsokit.a starts with vdsokit_" -g --defined-only "$build/libvdsokit.a"
prefixed "every export of libvdsokit.so starts with vdsokit_" -D --defined-only "$build/lib/libvdsokit.so.1"

# Three kinds of global, told apart by their names: the public API (declared
# in include/vdsokit.h, exported), the header's private helpers (vdsokit__,
# exported for its inline calls, in the version map), and the library's
# internals (vdsokit_lib_, never exported).  No internal may look public.
nm -g --defined-only "$build/libvdsokit.a" 2>/dev/null | awk 'NF == 3 && $2 != "A" { print $3 }' |
	sort -u >"$tmp/globals"
nm -D --defined-only "$build/lib/libvdsokit.so.1" 2>/dev/null | awk 'NF == 3 && $2 != "A" { print $3 }' |
	sed 's/@.*//' | sort -u >"$tmp/exports"
misnamed=""
while read -r sym; do
	case $sym in
	vdsokit__*)
		grep -qw "$sym" src/libvdsokit.map || misnamed="$misnamed $sym(vdsokit__, not in the version map)" ;;
	vdsokit_lib_*)
		! grep -qxF "$sym" "$tmp/exports" || misnamed="$misnamed $sym(internal, exported)" ;;
	*)
		# Public: declared in the header, in the version map and exported (a word of
		# the header alone could be a struct tag, as vdsokit_timespec is).
		{ grep -qw "$sym" include/vdsokit.h && grep -qE "^[[:space:]]*$sym;" src/libvdsokit.map &&
			grep -qxF "$sym" "$tmp/exports"; } ||
			misnamed="$misnamed $sym(not public: in vdsokit.h, the version map and exported? vdsokit_lib_?)" ;;
	esac
done <"$tmp/globals"
if [ -s "$tmp/globals" ] && [ -z "$misnamed" ]; then
	ok "every global is public (vdsokit.h), vdsokit__ (exported for the header) or vdsokit_lib_ (internal)"
else
	not_ok "globals named for the wrong kind:$misnamed"
fi

for how in static shared; do
	if [ $how = static ]; then
		lib="$build/libvdsokit.a"
	else
		lib="-L$build/lib -l:libvdsokit.so.1 -Wl,-rpath,$build/lib"
	fi
	what="a program with globals named vdso_clock_gettime etc. links with libvdsokit ($how)"
	# shellcheck disable=SC2086
	if cc -Iinclude -o "$tmp/clash-$how" tests/namespace/clash.c $lib 2>"$tmp/err"; then
		ok "$what"
		# Its own TAP: the library's call works and its variables are its own.
		check "and runs: the library answers, its own globals untouched ($how)" "$tmp/clash-$how"
	else
		not_ok "$what"
		head -3 "$tmp/err" | diag
	fi
done
done_testing
