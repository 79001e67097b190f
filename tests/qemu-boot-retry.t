#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/qemu/run-target's second boot, with a made-up boot program (no
# QEMU): a guest that stops before the end of its plan once is booted again,
# and the first stop stays on record (a TODO line with its reason and
# console tail, console.first.log, the summary's boot_first); a guest that
# stops twice fails; a guest that runs its plan is booted once.
. "$(dirname "$0")/lib.sh"

b=$tmp/build
mkdir -p "$b/qemu/prep" "$b/qemu/bin/m68k"
printf '#!/bin/sh\n' >"$b/qemu/bin/m68k/guest-init"
cp "$b/qemu/bin/m68k/guest-init" "$b/qemu/bin/m68k/vdso-probe"
echo "skip not built for this test" >"$b/qemu/prep/kselftest-m68k-vdso"

# The made-up boot: fails the first $FAILS times it runs, then writes the
# console of a guest that ran its (empty) plan.
cat >"$tmp/boot" <<'B'
#!/bin/sh
out=$3
count=$(cat "$COUNTER" 2>/dev/null || echo 0)
count=$((count + 1))
echo $count >"$COUNTER"
echo 7 >"$out/seconds"
if [ "$count" -le "$FAILS" ]; then
	printf 'VDSOKIT-GUEST start\nKernel panic - not syncing: boot %s\n' "$count" >"$out/console.log"
	echo "boot m68k-vdso: guest stopped before the end of its plan (qemu exit 0); console tail:" >&2
	echo "    Kernel panic - not syncing: boot $count" >&2
	exit 1
fi
printf 'VDSOKIT-GUEST uname Linux 6.12.117-test m68k\nVDSOKIT-GUEST start\nVDSOKIT-DONE\n' >"$out/console.log"
exit 0
B
chmod +x "$tmp/boot"

run_target() { # FAILS
	rm -f "$tmp/counter"
	COUNTER=$tmp/counter FAILS=$1 VDSOKIT_BOOT_PROGRAM=$tmp/boot VDSOKIT_BUILD=$b \
		VDSOKIT_ROOT=$top VDSOKIT_CACHE=$tmp/cache "$top/tests/qemu/run-target" m68k-vdso \
		>"$tmp/run.out" 2>&1
	boots=$(cat "$tmp/counter")
	tap=$b/qemu/m68k-vdso/tap
	summary=$b/qemu/m68k-vdso/summary
}

run_target 0
[ "$boots" = 1 ] && ok "a guest that runs its plan is booted once" || not_ok "a guest that runs its plan is booted once (booted $boots times)"
grep -q '^ok - m68k-vdso: guest booted (Linux 6.12.117-test m68k) and ran its whole plan' "$tap" &&
	! grep -q 'first boot' "$tap" && ! grep -q '^boot_first=' "$summary" &&
	ok "... and its TAP and summary say nothing of a first boot" ||
	{ not_ok "... and its TAP and summary say nothing of a first boot"; diag <"$tap"; }

run_target 1
[ "$boots" = 2 ] && ok "a guest that stopped once is booted again" || not_ok "a guest that stopped once is booted again (booted $boots times)"
grep -q '^ok - m68k-vdso: guest booted (Linux 6.12.117-test m68k) and ran its whole plan' "$tap" &&
	ok "... and the second boot's results are judged" ||
	{ not_ok "... and the second boot's results are judged"; diag <"$tap"; }
grep -q '^not ok - m68k-vdso: the first boot ran its whole plan # TODO booted again: boot m68k-vdso: guest stopped before the end of its plan' "$tap" &&
	grep -q '^#.*Kernel panic - not syncing: boot 1' "$tap" &&
	ok "... and the first stop is a TODO line with its reason and console tail" ||
	{ not_ok "... and the first stop is a TODO line with its reason and console tail"; diag <"$tap"; }
grep -q 'boot 1' "$b/qemu/m68k-vdso/console.first.log" 2>/dev/null &&
	grep -q '^boot_first=boot m68k-vdso: guest stopped' "$summary" &&
	ok "... and console.first.log and the summary's boot_first keep it" ||
	{ not_ok "... and console.first.log and the summary's boot_first keep it"; diag <"$summary"; }

run_target 2
[ "$boots" = 2 ] && ok "a guest that stops twice is booted twice, no more" || not_ok "a guest that stops twice is booted twice (booted $boots times)"
grep -q '^not ok - m68k-vdso: guest ran its whole plan' "$tap" &&
	grep -q '^#.*Kernel panic - not syncing: boot 2' "$tap" &&
	ok "... and fails, with the second stop's console tail" ||
	{ not_ok "... and fails, with the second stop's console tail"; diag <"$tap"; }
done_testing
