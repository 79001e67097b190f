#!/bin/sh
# SPDX-License-Identifier: MIT
# The public calls carry no barrier and no oversized frame, on every ABI the
# QEMU matrix builds: each ABI's compiler builds the library's call files
# and a program that uses the header's inline calls, and the disassembly of
# every public call (vdsokit_clock_gettime, _getres, _gettimeofday, _time,
# _getcpu, _getrandom, _thread_pointer; the inlined ones in the program; the
# route of a MIPS vDSO that may decline a clock) is
# searched for that ABI's barrier and atomic read-modify-write instructions,
# and for a call to libatomic or libgcc's __sync helpers.  The routes are
# read with plain loads (include/vdsokit.h says why that is enough); the
# slow paths (resolution, a thread's first getrandom) are functions of their
# own, called only before a route exists.  Each function's frame, from
# -fstack-usage, must be within 64 bytes of the ABI's minimum.  (On powerpc
# the vDSO call's asm opens one frame more, the vDSO's own header below the
# red zone, which -fstack-usage does not see: src/arch/powerpc.h says why;
# its bytes count in the guests' measured stack use, tests/lib/stack.c.)
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

calls="vdsokit_clock_gettime vdsokit_clock_getres vdsokit_gettimeofday vdsokit_time vdsokit_getcpu vdsokit_getrandom vdsokit_thread_pointer"

cat >"$tmp/inline.c" <<'C'
#include "vdsokit.h"
/* The header's inline calls, each in a function of its own to disassemble. */
int inline_clock_gettime(struct vdsokit_timespec *ts) { return vdsokit_clock_gettime(1, ts); }
int inline_clock_getres(struct vdsokit_timespec *ts) { return vdsokit_clock_getres(1, ts); }
int inline_time(int64_t *t) { return vdsokit_time(t); }
int inline_getcpu(unsigned *cpu) { return vdsokit_getcpu(cpu, 0); }
int inline_getcpu_node(unsigned *cpu, unsigned *node) { return vdsokit_getcpu(cpu, node); }
C

# The floor of a call made through a pointer read from memory: a tail call,
# no frame.  Where the header's inline clock calls have no 32-bit-time route
# to widen (64-bit time: LP64 and x32), theirs must be the same: the vDSO
# entry's answer is the answer, so nothing is left to do after the call.
cat >"$tmp/tail.c" <<'C'
#include "vdsokit.h"
extern int (*volatile tail_fn)(int, struct vdsokit_timespec *);
int tail_call(struct vdsokit_timespec *ts) { return tail_fn(1, ts); }
#if defined(VDSOKIT_INLINE_GETTIME) && !defined(VDSOKIT__INLINE_TIME32)
int inline_calls_time64;
#endif
C

# barriers ARCH: the extended regex of that ABI's barrier and atomic instructions.
barriers() {
	atomics='<__(atomic|sync)_'
	case $1 in
	x86_64 | x32 | i386) echo "\\<(mfence|lfence|sfence|lock)\\>|$atomics" ;;
	aarch64) echo "\\<(dmb|dsb|isb|ldar[bh]?|ldapr[bh]?|stlr[bh]?|ld[a]?xr[bh]?|st[l]?xr[bh]?|cas[a-z]*|swp[a-z]*|ldadd[a-z]*)\\>|$atomics" ;;
	armhf) echo "\\<(dmb|dsb|isb|ldrex[a-z]*|strex[a-z]*)\\>|mcr.*c7, c10, 5|$atomics" ;;
	ppc*) echo "\\<(sync|lwsync|hwsync|isync|eieio|lwarx|ldarx)\\>|stwcx|stdcx|$atomics" ;;
	mips*) echo "\\<(sync|ll|sc|lld|scd)\\>|$atomics" ;;
	riscv64) echo "\\<fence|\\<(lr|sc)\\.[wd]|\\<amo[a-z]+\\.[wd]|$atomics" ;;
	s390x) echo "\\<bcr[[:space:]]+1[45],|\\<(cs|csg|csy)\\>|$atomics" ;;
	sparc*) echo "\\<(membar|stbar|cas|casa|casx|casxa)\\>|$atomics" ;;
	m68k) echo "\\<(cas|cas2|tas)[.a-z]*\\>|$atomics" ;;
	*) echo "$atomics" ;;
	esac
}

# min_frame ARCH: the ABI's smallest frame, what a function with any call must open.
min_frame() {
	case $1 in
	x86_64 | x32 | i386 | m68k | armhf | mips64el) echo 16 ;;
	aarch64 | riscv64 | ppc | mips-o32 | mips-n32) echo 32 ;;
	ppc64le) echo 32 ;;
	ppc64) echo 112 ;;
	s390x) echo 160 ;;
	sparc64) echo 176 ;;
	sparc32) echo 96 ;;
	*) echo 64 ;;
	esac
}

# body OBJDUMP OBJECT FUNCTION: the disassembly of one function.
body() {
	"$1" -d --no-show-raw-insn "$2" 2>/dev/null |
		awk -v f="$3" '$0 ~ "^[0-9a-f]+ <\\.?" f ">:$" { on = 1; next } on && /^$/ { exit } on'
}

. "$top/tests/qemu/targets.sh"
seen=" "
for target in x86_64-host $MATRIX_TARGETS; do
	if [ "$target" = x86_64-host ]; then
		t_arch=x86_64 t_triple=x86_64-linux-gnu t_cflags=
		cc=gcc objdump=objdump
	else
		target_info "$target" || continue
		cc=$t_triple-gcc-12 objdump=$t_triple-objdump
	fi
	key="$t_triple$t_cflags"
	case $seen in *" $key "*) continue ;; esac
	seen="$seen$key "
	if ! have "$cc" || ! have "$objdump"; then
		skip "$t_arch: $cc or $objdump not installed"
		continue
	fi
	dir=$tmp/$t_arch
	mkdir -p "$dir"
	built=1
	for src in src/time.c src/cpu.c src/random.c src/tp.c src/vdso.c "$tmp/inline.c" "$tmp/tail.c"; do
		# shellcheck disable=SC2086
		if ! "$cc" $t_cflags -std=gnu11 -O2 -fstack-usage -Iinclude -Isrc -D_GNU_SOURCE \
			-c "$src" -o "$dir/$(basename "$src" .c).o" 2>"$dir/cc.err"; then
			not_ok "$t_arch: $src does not compile with $cc $t_cflags"
			diag <"$dir/cc.err"
			built=0
		fi
	done
	[ $built = 1 ] || continue
	regex=$(barriers "$t_arch")
	limit=$(($(min_frame "$t_arch") + 64))
	found="" frames="" big="" missing=""
	for fn in $calls inline_clock_gettime inline_clock_getres inline_time inline_getcpu inline_getcpu_node \
		vdsokit_lib_clock_gettime_declining; do
		text=""
		for o in "$dir"/*.o; do
			text=$(body "$objdump" "$o" "$fn")
			[ -n "$text" ] && break
		done
		if [ -z "$text" ]; then
			# Absent where the header inlines nothing, and the declining
			# entry's route off MIPS (src/vdso.c).
			case $fn in inline_* | vdsokit_lib_clock_gettime_declining) continue ;; esac
			missing="$missing $fn"
			continue
		fi
		hits=$(printf '%s\n' "$text" | grep -E "$regex" | head -3 | sed 's/^[[:space:]]*//' | tr '\n' ';')
		[ -n "$hits" ] && found="$found $fn: $hits"
		frame=$(cat "$dir"/*.su | awk -F'\t' -v f="$fn" '{ n = split($1, p, ":"); if (p[n] == f) print $2 }' | head -1)
		frames="$frames $fn=${frame:-?}"
		[ -n "$frame" ] && [ "$frame" -gt "$limit" ] && big="$big $fn=$frame"
	done
	if [ -n "$missing" ]; then
		not_ok "$t_arch: public calls not found in the objects:$missing"
	elif [ -n "$found" ]; then
		not_ok "$t_arch: a barrier or atomic instruction on a public call's path:$found"
	else
		ok "$t_arch: no barrier in the public calls, inlined ones included ($cc $t_cflags)"
	fi
	if [ -n "$big" ]; then
		not_ok "$t_arch: a frame over $limit bytes (the ABI's minimum + 64):$big"
	else
		ok "$t_arch: every public call's frame within $limit bytes:$frames"
	fi
	case $t_arch in
	sparc*)
		# PIC code opens a register window for its GOT pointer even
		# for a bare call through a pointer: no tail call to compare.
		skip "$t_arch: the inlined clock calls as a tail call: sparc's PIC code makes no tail call through a loaded pointer"
		;;
	*)
	if nm "$dir/tail.o" 2>/dev/null | grep -q ' inline_calls_time64$'; then
		floor=$(cat "$dir"/tail.su | awk -F'\t' '{ n = split($1, p, ":"); if (p[n] == "tail_call") print $2 }')
		wide=""
		for fn in inline_clock_gettime inline_clock_getres; do
			frame=$(cat "$dir"/inline.su | awk -F'\t' -v f="$fn" '{ n = split($1, p, ":"); if (p[n] == f) print $2 }')
			[ "$frame" = "$floor" ] || wide="$wide $fn=${frame:-?}"
		done
		if [ -n "$wide" ]; then
			not_ok "$t_arch: the inlined clock calls are a tail call of the entry, no frame beyond a tail call's ($floor):$wide"
			body "$objdump" "$dir/inline.o" inline_clock_gettime | head -20 | diag
		else
			ok "$t_arch: the inlined clock calls are a tail call of the entry: frame $floor, as a bare tail call's"
		fi
	fi
		;;
	esac
	# MIPS n64: the inlined clock calls pick the route's function or the
	# library's with a conditional move, no branch (include/vdsokit.h).
	case $t_arch in
	mips64el)
		# A body without a conditional move (none at all, or no inlining)
		# fails too; any mnemonic starting with b is a branch on MIPS.
		branches=""
		for fn in inline_clock_gettime inline_clock_getres; do
			text=$(body "$objdump" "$dir/inline.o" "$fn")
			b=$(printf '%s\n' "$text" | grep -cE '^[[:space:]]*[0-9a-f]+:[[:space:]]+b[a-z0-9]*[[:space:]]')
			m=$(printf '%s\n' "$text" | grep -cE '[[:space:]](movz|movn|seleqz|selnez)[[:space:]]')
			[ "$b" -eq 0 ] && [ "$m" -ge 1 ] || branches="$branches $fn=$b branches, $m moves"
		done
		if [ -z "$branches" ]; then
			ok "$t_arch: the inlined clock calls choose their pointer without a branch (movz)"
		else
			not_ok "$t_arch: the inlined clock calls choose their pointer without a branch (movz):$branches"
			body "$objdump" "$dir/inline.o" inline_clock_gettime | head -20 | diag
		fi
		;;
	esac
	# x86_64, x32 and i386 read getcpu's rseq area in the caller, through
	# the segment their thread pointer is the base of; x32 through a 64-bit
	# register (its offset widened with its sign: a 32-bit register would
	# be zero-extended as an address).
	case $t_arch in
	x86_64 | i386 | x32)
		want='%[fg]s:\(%'
		[ "$t_arch" = x32 ] && want='%fs:\(%r'
		seg=$(body "$objdump" "$dir/inline.o" inline_getcpu | grep -cE "$want")
		if [ "$seg" -ge 1 ]; then
			ok "$t_arch: the inlined getcpu reads the rseq area's cpu_id in the caller (a segment-relative load)"
		else
			not_ok "$t_arch: the inlined getcpu reads the rseq area's cpu_id in the caller (a segment-relative load)"
			body "$objdump" "$dir/inline.o" inline_getcpu | head -20 | diag
		fi
		;;
	esac
done
done_testing
