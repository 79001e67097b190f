#!/bin/sh
# SPDX-License-Identifier: MIT
# make check's failure report: tests/keep-tap (prove's runner) passes a
# test's output and exit status through and keeps its TAP, and
# tests/failure-digest turns the kept TAP into the short list printed at
# the end of a failed run, where a CI log's tail shows it.
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

cat >"$tmp/fails.t" <<'T'
#!/bin/sh
echo "ok 1 - first"
echo "not ok 2 - the guest booted"
echo "# boot m68k-vdso: guest stopped before the end of its plan"
echo "#     Kernel panic - not syncing: Attempted to kill init!"
echo "ok 3 - third"
echo "not ok 4 - known limit # TODO a kernel bug"
echo "# a TODO's diagnostics"
echo "not ok 5 - vdsokit verify (status did not run)"
echo "1..5"
exit 1
T
cat >"$tmp/passes.t" <<'T'
#!/bin/sh
echo "ok 1 - fine"
echo "1..1"
T
chmod +x "$tmp/fails.t" "$tmp/passes.t"

VDSOKIT_TAP_DIR=$tmp/tap tests/keep-tap "$tmp/fails.t" >"$tmp/out"
status=$?
[ $status -eq 1 ] && ok "keep-tap keeps a failing test's exit status (1)" ||
	not_ok "keep-tap keeps a failing test's exit status (got $status)"
VDSOKIT_TAP_DIR=$tmp/tap tests/keep-tap "$tmp/passes.t" >/dev/null &&
	ok "keep-tap keeps a passing test's exit status (0)" ||
	not_ok "keep-tap keeps a passing test's exit status"
cmp -s "$tmp/out" "$tmp/tap/$(echo "$tmp/fails.t" | sed 's|/|%|g').tap" &&
	ok "keep-tap passes the output through and keeps the same copy" ||
	not_ok "keep-tap passes the output through and keeps the same copy"

tests/failure-digest "$tmp/tap" >"$tmp/digest"
grep -qx "$tmp/fails.t: not ok 2 - the guest booted" "$tmp/digest" &&
	grep -q 'Kernel panic - not syncing' "$tmp/digest" &&
	ok "the digest names the first failure, under its file's path, with its diagnostics" ||
	{ not_ok "the digest names the first failure with its diagnostics"; diag <"$tmp/digest"; }
grep -qx "$tmp/fails.t: not ok 5 - vdsokit verify (status did not run)" "$tmp/digest" &&
	ok "the digest lists every failure" ||
	{ not_ok "the digest lists every failure"; diag <"$tmp/digest"; }
grep -q 'known limit\|TODO' "$tmp/digest" &&
	{ not_ok "the digest leaves TODO failures out"; diag <"$tmp/digest"; } ||
	ok "the digest leaves TODO failures out"
grep -q 'every failed test (2)' "$tmp/digest" &&
	ok "the digest counts 2 failures" || { not_ok "the digest counts 2 failures"; diag <"$tmp/digest"; }
[ "$(wc -l <"$tmp/digest")" -le 45 ] &&
	ok "the digest is short ($(wc -l <"$tmp/digest") lines)" ||
	not_ok "the digest is short ($(wc -l <"$tmp/digest") lines)"

tests/failure-digest --second-boots "$tmp/tap" >"$tmp/second"
[ ! -s "$tmp/second" ] && ok "with no second boot, --second-boots prints nothing" ||
	{ not_ok "with no second boot, --second-boots prints nothing"; diag <"$tmp/second"; }
cat >"$tmp/tap/matrix.tap" <<'T'
ok 1 - m68k-vdso: guest booted (Linux 6.12.117 m68k) and ran its whole plan in 80 s
not ok 2 - m68k-vdso: the first boot ran its whole plan # TODO booted again: boot m68k-vdso: guest hung, killed after 300 s
#   boot m68k-vdso: guest hung, killed after 300 s; console tail:
#       VDSOKIT-RUN verify /bin/vdsokit verify
ok 3 - m68k-vdso: guest machine is m68k
1..3
T
tests/failure-digest --second-boots "$tmp/tap" >"$tmp/second"
grep -q 'not ok 2 - m68k-vdso: the first boot ran its whole plan # TODO booted again' "$tmp/second" &&
	grep -q 'VDSOKIT-RUN verify' "$tmp/second" && ! grep -q 'ok 3' "$tmp/second" &&
	ok "--second-boots names a guest booted twice, with the first stop's console tail" ||
	{ not_ok "--second-boots names a guest booted twice, with the first stop's console tail"; diag <"$tmp/second"; }
rm -f "$tmp/tap/"*fails* "$tmp/tap/matrix.tap"
tests/failure-digest "$tmp/tap" | grep -q 'no failed test' &&
	ok "with nothing failed, the digest says so" || not_ok "with nothing failed, the digest says so"
done_testing
