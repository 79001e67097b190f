#!/bin/sh
# SPDX-License-Identifier: MIT
# Text for people follows the locale's codeset: µs and × in a UTF-8 locale,
# us and x in any other (LC_ALL=C, POSIX), where a terminal would show the
# UTF-8 bytes as garbage.  JSON stays UTF-8 whatever the locale.
. "$(dirname "$0")/lib.sh"

# non_ascii FILE: true when FILE has a byte above 0x7f.
non_ascii() {
	LC_ALL=C grep -q "$(printf '[\200-\377]')" "$1"
}

for locale in C POSIX; do
	LC_ALL=$locale "$vdsokit" bench --time 0.2 --functions time,getcpu >"$tmp/bench.$locale" 2>&1
	LC_ALL=$locale "$vdsokit" bench --time 0.2 --functions time --json >"$tmp/bench.json" 2>/dev/null
	LC_ALL=$locale "$vdsokit" report >"$tmp/report.$locale" 2>&1
	LC_ALL=$locale "$vdsokit" compare "$tmp/bench.json" >"$tmp/compare.$locale" 2>&1
	LC_ALL=$locale "$vdsokit" compare "$tmp/bench.json" --markdown >>"$tmp/compare.$locale" 2>&1
	LC_ALL=$locale "$vdsokit" doctor >"$tmp/doctor.$locale" 2>&1
	for cmd in bench report compare doctor; do
		if non_ascii "$tmp/$cmd.$locale"; then
			not_ok "LC_ALL=$locale $cmd: ASCII only"
			LC_ALL=C grep -n "$(printf '[\200-\377]')" "$tmp/$cmd.$locale" | head -5 | diag
		else
			ok "LC_ALL=$locale $cmd: ASCII only"
		fi
	done
	: >"$tmp/help.$locale"
	for cmd in report info inspect dump bench compare verify abi doctor metrics; do
		LC_ALL=$locale "$vdsokit" "$cmd" --help >>"$tmp/help.$locale" 2>&1
	done
	check "LC_ALL=$locale: every --help is ASCII" sh -c "! LC_ALL=C grep -q '$(printf '[\200-\377]')' '$tmp/help.$locale'"
done
check "LC_ALL=C bench: the speedup as 'x'" sh -c \
	"grep -Eq '^time +[a-z-]+ +[0-9.]+ ns .* [0-9.]+x\$' '$tmp/bench.C'"
check "LC_ALL=C report: the verdict says 'x faster'" grep -Eq '^Verdict: .*[0-9]x (faster|$)|costs about' "$tmp/report.C"

# A UTF-8 locale keeps the signs, from LC_ALL or from LANG.
LC_ALL=C.UTF-8 "$vdsokit" bench --time 0.2 --functions time >"$tmp/bench.utf8" 2>&1
check "LC_ALL=C.UTF-8 bench: the speedup with ×" grep -Eq '^time +.* [0-9.]+×$' "$tmp/bench.utf8"
env -u LC_ALL LANG=C.UTF-8 "$vdsokit" bench --time 0.2 --functions time >"$tmp/bench.lang" 2>&1
check "LANG=C.UTF-8 (no LC_ALL) bench: the speedup with ×" grep -Eq '^time +.* [0-9.]+×$' "$tmp/bench.lang"
env -u LC_ALL LANG=C.UTF-8 LC_CTYPE=C "$vdsokit" bench --time 0.2 --functions time >"$tmp/bench.ctype" 2>&1
check "LC_CTYPE=C beats LANG=C.UTF-8: ASCII" sh -c "! LC_ALL=C grep -q '$(printf '[\200-\377]')' '$tmp/bench.ctype'"
done_testing
