#!/bin/sh
# SPDX-License-Identifier: MIT
# Static analysis, failing on any finding:
#   - cppcheck (warning, style, performance, portability) on src/, for the
#     host's configuration; suppressions in tests/hardening/cppcheck.supp,
#     each justified there;
#   - cppcheck (warning, performance, portability) on cli/;
#   - gcc -fanalyzer on every library source, for the host and, where the
#     cross compilers are installed, a 64-bit (aarch64) and a 32-bit (i686)
#     target: the per-architecture headers differ;
#   - gcc -fanalyzer on cli/ (table.c silences one false leak report, with
#     its reason, in place).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; sed 's/^/# /' "$tmp/log" | head -40; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $*"; }

host_defs="-D__linux__ -D__$(uname -m | tr - _)__"
cppcheck_run() {
	# $1: checks, rest: directories
	checks=$1
	shift
	# shellcheck disable=SC2086
	cppcheck -q --std=c11 --enable="$checks" --inline-suppr \
		--suppressions-list=tests/hardening/cppcheck.supp --error-exitcode=1 \
		-Iinclude -Isrc -Icli -D_GNU_SOURCE $host_defs "$@" >"$tmp/log" 2>&1
}

if command -v cppcheck >/dev/null 2>&1; then
	if cppcheck_run warning,style,performance,portability src/; then
		ok "cppcheck src/: no finding"
	else
		not_ok "cppcheck src/ reports problems"
	fi
	if cppcheck_run warning,performance,portability cli/; then
		ok "cppcheck cli/: no finding"
	else
		not_ok "cppcheck cli/ reports problems"
	fi
else
	skip "cppcheck not installed (scripts/install-deps)"
	skip "cppcheck not installed (scripts/install-deps)"
fi

# The project's warnings, as errors, plus the analyser.
warn="-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wcast-align -Wundef"
analyze() {
	# $1: compiler, rest: sources; output in $tmp/log
	cc=$1
	shift
	: >"$tmp/log"
	status=0
	for f in "$@"; do
		# shellcheck disable=SC2086
		"$cc" -std=gnu11 -O2 $warn -fanalyzer -Iinclude -Isrc -Icli -D_GNU_SOURCE \
			-c -o /dev/null "$f" >>"$tmp/log" 2>&1 || status=1
	done
	return $status
}

for cc in gcc aarch64-linux-gnu-gcc-12 i686-linux-gnu-gcc-12; do
	if ! command -v "$cc" >/dev/null 2>&1; then
		skip "$cc not installed"
	elif analyze "$cc" src/*.c; then
		ok "$cc -fanalyzer src/*.c: no finding"
	else
		not_ok "$cc -fanalyzer src/*.c reports problems"
	fi
done

if analyze gcc cli/*.c cli/*/*.c; then
	ok "gcc -fanalyzer cli/: no finding"
else
	not_ok "gcc -fanalyzer cli/ reports problems"
fi
echo "1..$n"
