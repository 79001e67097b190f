#!/bin/sh
# SPDX-License-Identifier: MIT
# `make bench`'s program: every row has its figures side by side, and the
# first call in a fresh process was measured for the static and the shared
# library (both fresh programs ran and reported their time and page
# faults).  The figures are shown as diagnostics, never judged.
. "$(dirname "$0")/lib.sh"

bench=$build/bench/bench
for prog in first-call-static first-call-shared; do
	if "$build/bench/$prog" >"$tmp/$prog.out" 2>"$tmp/$prog.err"; then
		check "$prog prints '<ns> <page faults> <again ns>'" grep -Eq '^-?[0-9]+ [0-9]+ -?[0-9]+$' "$tmp/$prog.out"
	else
		not_ok "$prog exits 0"
		diag <"$tmp/$prog.err"
	fi
done

"$bench" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 0 ]; then ok "bench exits 0"; else not_ok "bench exits 0 (status $status)"; diag <"$tmp/err"; fi
check "bench has the column header" \
	grep -Eq '^call +raw +kit +libc +syscall +kit/raw +kit-raw +kit/libc +goal$' "$tmp/out"
number='[0-9]+\.[0-9]+'
for call in 'clock_gettime\(MONOTONIC\)' 'clock_gettime\(REALTIME_COARSE\)' 'clock_gettime\(PROCESS_CPUTIME\)' \
	'clock_getres\(MONOTONIC\)' 'time' 'getcpu\(cpu\) \([a-z]+\)' 'getcpu\(cpu\+node\) \([a-z]+\)'; do
	check "row $(printf '%s' "$call" | tr -d '\\') has kit, libc and syscall figures" \
		grep -Eq "^$call +($number|-) +$number +$number +$number " "$tmp/out"
done
# getcpu like with like: the CPU alone against the bare entry without a node
# pointer and sched_getcpu(), the CPU and node against the bare entry and
# getcpu(3) asking for the node too.
check "getcpu(cpu)'s references: the bare entry with a NULL node, sched_getcpu()" sh -c \
	"grep -A1 '^getcpu(cpu): ' '$tmp/out' | tr -s ' \n' ' ' |
	 grep -Fq 'raw __vdso_getcpu(&cpu, NULL, NULL), kit vdsokit_getcpu(&cpu, NULL), libc sched_getcpu()'"
check "getcpu(cpu+node)'s references: the bare entry and getcpu(3) asking for the node" sh -c \
	"grep -A1 '^getcpu(cpu+node): ' '$tmp/out' | tr -s ' \n' ' ' |
	 grep -Fq 'raw __vdso_getcpu(&cpu, &node, NULL), kit vdsokit_getcpu(&cpu, &node), libc getcpu(&cpu, &node)'"
check "the first call's warm work is reported" grep -Eq "^first call's work .*: [0-9]+ ns$" "$tmp/out"
for what in 'static \(-static, libvdsokit\.a\)' 'static, right after the same program' 'dynamic \(libvdsokit\.so\)'; do
	check "the fresh-process first call is measured: $(printf '%s' "$what" | tr -d '\\')" \
		grep -Eq "^  $what +[0-9]+ ns, [0-9]+ page faults " "$tmp/out"
done
check "the static first call's resolution is measured again, warm, in its process" \
	grep -Eq "^    the same resolution again at once, in that process: [0-9]+ ns$" "$tmp/out"
# getrandom's first call in a thread beside 15, 1,000, 4,096 and 16,384 live threads
# (figures, never judged: the check is that each was measured or skipped with its reason).
if grep -q '^getrandom first call with live threads: skipped, ' "$tmp/out"; then
	skip "getrandom first calls: $(grep '^getrandom first call with live threads' "$tmp/out")"
else
	for live in 15 1000 4096 16384; do
		check "getrandom's first call beside $live live threads is measured" \
			grep -Eq "^  $live +[0-9]+ ns +[0-9]+ ns$" "$tmp/out"
	done
fi
# x86: the timed loops (make bench's run_*, vdsokit bench's loop_*) are
# built so that no jump, and no compare fused with its conditional jump,
# crosses or ends at a 32-byte boundary (LOOP_CFLAGS in the Makefile says
# why); the one that did put clock_getres 0.33 ns "over".  Prefixes the
# assembler pads with (cs, ds) or the ABI adds (notrack, bnd) are skipped;
# a function's last instruction ends where the next function starts.
# jump_boundaries PROGRAM REGEX: the offending jumps of the functions named so.
jump_boundaries() {
	objdump -d --no-show-raw-insn "$1" | awk -v want="$2" '
		function hex(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		function check(end) {
			if (jump != "" && (int(from / 32) != int((end - 1) / 32) || end % 32 == 0))
				printf "%s: %s at %x-%x\n", fn, jump, from, end
			jump = ""
		}
		/^[0-9a-f]+ <.*>:$/ { check(hex($1)); name = substr($2, 2, length($2) - 3); timed = name ~ want; seen += timed; fn = name; op = ""; next }
		!timed || !/^ *[0-9a-f]+:\t/ { next }
		{
			at = hex(substr($1, 1, length($1) - 1))
			check(at)
			i = 2
			while ($i ~ /^(cs|ds|es|ss|fs|gs|notrack|bnd|data16|addr32)$/) i++
			if ($i ~ /^j/) {
				jump = $i
				from = $i != "jmp" && op ~ /^(cmp|test|add|sub|and|inc|dec)/ ? last : at
			}
			op = $i; last = at
		}
		END { if (!seen) print "no function named " want ": nothing was checked" }'
}
case $(uname -m) in
x86_64 | i?86)
	for prog in "$bench:^run_" "$build/vdsokit:^loop_"; do
		jump_boundaries "${prog%%:*}" "${prog#*:}" >"$tmp/jcc"
		what="no jump of $(basename "${prog%%:*}")'s timed loops on a 32-byte boundary (the JCC erratum's penalty)"
		if [ ! -s "$tmp/jcc" ]; then ok "$what"; else not_ok "$what"; head -5 "$tmp/jcc" | diag; fi
	done
	;;
*) skip "the JCC erratum's 32-byte boundaries: x86 only" ;;
esac
diag <"$tmp/out"
done_testing
