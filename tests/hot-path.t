#!/bin/sh
# SPDX-License-Identifier: MIT
# The public calls carry no barrier and no oversized frame, on every ABI the
# QEMU matrix builds: each ABI's compiler builds the shared library (as the
# Makefile does, -fPIC) and a program that uses the header's inline calls.
# From every public call (vdsokit_clock_gettime, _getres, _gettimeofday,
# _time, _getcpu, _getrandom, _thread_pointer; the route of a MIPS vDSO
# that may decline a clock) the library's disassembly is followed through
# direct calls and tail calls to every function they reach, but the slow
# paths named below, and each function reached, with the inlined calls in
# the program, is searched for that ABI's barrier and atomic
# read-modify-write instructions, and for a call to libatomic or libgcc's
# __sync helpers.  The routes are read with plain loads (include/vdsokit.h
# says why that is enough); the slow paths (resolution, a thread's first
# getrandom) are functions of their own, called only before a route
# exists.  Each barrier regex is first checked against the ABI's own
# assembler and objdump.  Each public function's frame, from
# -fstack-usage, must be within 64 bytes of the ABI's minimum.  (On powerpc
# the vDSO call's asm opens one frame more, the vDSO's own header below the
# red zone, which -fstack-usage does not see: src/arch/powerpc.h says why;
# its bytes count in the guests' measured stack use, tests/lib/stack.c.)
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1

sover=$(sed -n 's/^SOVERSION := //p' Makefile)
opt=$(sed -n 's/^OPT *?= //p' Makefile)
calls="vdsokit_clock_gettime vdsokit_clock_getres vdsokit_gettimeofday vdsokit_time vdsokit_getcpu vdsokit_getrandom vdsokit_thread_pointer"
# What a clock slot leads to besides a vDSO entry (src/vdso.c, publish_clock):
# the syscall, the MIPS entry that may decline, the ILP32 widening of a
# 32-bit-time entry.  Reached by the inlined calls through a pointer, so
# the walk starts from them too; absent where the ABI has none.
routed="vdsokit_lib_clock_gettime_syscall vdsokit_lib_clock_getres_syscall vdsokit_lib_clock_gettime_declining vdsokit_lib_clock_gettime_time32 vdsokit_lib_clock_getres_time32"

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

# barriers ARCH: the extended regex of that ABI's barrier and atomic
# read-modify-write instructions, as binutils 2.40's objdump prints them
# (barrier_samples below assembles each one and checks it matches), and a
# call to libatomic or libgcc's __sync helpers.
#   x86: mfence, sfence, and lfence too (not a load/store fence for ordering
#     but a speculation barrier; glibc's clock and getcpu paths have none of
#     the three); any lock-prefixed instruction, and xchg with a memory
#     operand (locked without the prefix).
#   s390x: bcr 15,0 and bcr 14,0 (serialization) print as `br %r0` and
#     `bnor %r0`; compare-and-swap (cs, cds) and interlocked access (la*, lpd).
#   arm: the CP15 barriers print as `mcr 15, 0, rN, cr7, cr10, {5}`
#     (dmb), `{4}` (dsb) and `cr7, cr5, {4}` (isb).
#   mips: sync with a stype prints as sync_mb, sync_acquire, …
#   ppc: sync prints as hwsync, `sync 2` as ptesync, mbar as eieio.
#   m68k has no barrier instruction (its kernel offers an atomic_barrier
#     system call, which no path here makes): only cas, cas2 and tas.
#   loongarch (dbar, ibar) is not in the matrix, nor is a compiler for it here.
barriers() {
	atomics='<__(atomic|sync)_'
	case $1 in
	x86_64 | x32 | i386) echo "\\<(mfence|lfence|sfence|lock)\\>|\\<xchg[bwlq]?[[:space:]][^#]*\\(|$atomics" ;;
	aarch64) echo "\\<(dmb|dsb|isb|sb|ldar[bh]?|ldapr[bh]?|ldapur[a-z]*|stlr[bh]?|stlur[bh]?|ldlar[bh]?|stllr[bh]?|ld[a]?x[rp][bh]?|st[l]?x[rp][bh]?|cas[a-z]*|swp[a-z]*|(ld|st)(add|clr|eor|set|smax|smin|umax|umin)[a-z]*)\\>|$atomics" ;;
	armhf) echo "\\<(dmb|dsb|isb|ssbb|pssbb|sb|lda[a-z]*|stl[a-z]*|ldrex[a-z]*|strex[a-z]*|swpb?)\\>|\\<mcr2?[[:space:]]+p?15,[[:space:]]*0,[^,]*,[[:space:]]*c?r?7,[[:space:]]*c?r?(10,[[:space:]]*\\{?[45]|5,[[:space:]]*\\{?4)\\>|$atomics" ;;
	ppc*) echo "\\<(sync|hwsync|lwsync|ptesync|isync|eieio|mbar|msync|l[bhwdq]arx)\\>|\\<st[bhwdq]cx\\.|$atomics" ;;
	mips*) echo "\\<sync(_[a-z]+)?\\>|\\<(ll|sc|lld|scd|llwp|scwp|lldp|scdp|lle|sce)\\>|$atomics" ;;
	riscv64) echo "\\<fence|\\<(lr|sc)\\.[wd]|\\<amo[a-z]+\\.[wdbhq]|$atomics" ;;
	s390x) echo "\\<(bnor|br)[[:space:]]+%r0\\>|\\<bcr[[:space:]]+1[45],(%r)?0\\>|\\<(cs|csy|csg|cds|cdsy|cdsg|csst|ts|lpdg?|laa|laag|laal|laalg|lan|lang|lao|laog|lax|laxg)\\>|$atomics" ;;
	sparc*) echo "\\<(membar|stbar|cas|casa|casx|casxa|ldstub|ldstuba|swap|swapa)\\>|$atomics" ;;
	m68k) echo "\\<(cas|cas2|tas)[.a-z]*\\>|$atomics" ;;
	*) echo "$atomics" ;;
	esac
}

# barrier_samples ARCH: the assembler's flags on the first line, then each
# barrier and atomic instruction of that ABI, one a line, then a line
# "--", then instructions that are neither (loads, stores, branches that
# look alike): the first must all match barriers ARCH, the others none.
barrier_samples() {
	case $1 in
	x86_64 | x32) printf '%s\n' "" mfence lfence sfence 'lock addl $0,(%rsp)' 'xchg %eax,(%rsp)' \
		'xchg (%rsp),%rax' 'lock cmpxchg %ecx,(%rsp)' 'lock xaddq %rax,(%rdi)' -- \
		'xchg %ax,%ax' 'xchg %eax,%ebx' 'mov (%rsp),%eax' 'cmpxchg %ecx,%edx' 'call sys_lock' ret ;;
	i386) printf '%s\n' "" mfence lfence sfence 'lock addl $0,(%esp)' 'xchg %eax,(%esp)' \
		'lock cmpxchg8b (%esp)' -- 'xchg %ax,%ax' 'mov (%esp),%eax' ret ;;
	aarch64) printf '%s\n' -march=armv8.5-a+lse+rcpc 'dmb ish' 'dmb ishld' 'dsb sy' isb sb \
		'ldar x0,[x1]' 'ldarb w0,[x1]' 'ldapr x0,[x1]' 'ldapur x0,[x1]' 'stlr x0,[x1]' \
		'stlur w0,[x1]' 'ldxr x0,[x1]' 'ldaxr x0,[x1]' 'ldaxp x0,x2,[x1]' 'stxr w3,x0,[x1]' \
		'stlxr w3,x0,[x1]' 'stlxp w3,x0,x2,[x1]' 'casal x0,x2,[x1]' 'swpal x0,x2,[x1]' \
		'ldaddal x0,x2,[x1]' 'stadd x0,[x1]' 'ldsetal x0,x2,[x1]' 'ldlar x0,[x1]' 'stllr x0,[x1]' -- \
		'ldr x0,[x1]' 'str x0,[x1]' 'ldp x0,x2,[x1]' 'ldur x0,[x1]' 'blr x1' ret ;;
	armhf) printf '%s\n' -march=armv8-a 'dmb ish' 'dsb sy' 'isb sy' 'ldrex r0,[r1]' \
		'strex r2,r0,[r1]' 'ldrexd r0,r1,[r2]' 'lda r0,[r1]' 'stl r0,[r1]' 'ldaex r0,[r1]' \
		'stlex r2,r0,[r1]' 'mcr p15, 0, r0, c7, c10, 5' 'mcr p15, 0, r0, c7, c10, 4' \
		'mcr p15, 0, r0, c7, c5, 4' -- 'ldr r0,[r1]' 'str r0,[r1]' 'ldrd r0,r1,[r2]' \
		'mcr p15, 0, r0, c13, c0, 3' 'bx lr' ;;
	ppc64 | ppc64le) printf '%s\n' -Wa,-mpower9 sync lwsync hwsync isync eieio 'sync 2' \
		'lwarx 3,0,4' 'ldarx 3,0,4' 'lbarx 3,0,4' 'lharx 3,0,4' 'lqarx 4,0,5' 'stwcx. 3,0,4' \
		'stdcx. 3,0,4' 'stbcx. 3,0,4' 'sthcx. 3,0,4' -- 'lwz 3,0(4)' 'ld 3,0(4)' 'stw 3,0(4)' blr 'mtctr 3' ;;
	ppc) printf '%s\n' -Wa,-many sync lwsync isync eieio mbar msync 'lwarx 3,0,4' 'stwcx. 3,0,4' -- \
		'lwz 3,0(4)' 'stw 3,0(4)' blr ;;
	mips*) printf '%s\n' '-march=mips64r2 -Wa,-mno-fix-loongson3-llsc' sync 'sync 0x10' 'sync 0x11' 'sync 0x12' 'sync 0x4' 'sync 0x13' \
		'll $2,0($4)' 'sc $2,0($4)' 'lld $2,0($4)' 'scd $2,0($4)' -- 'lw $2,0($4)' 'sw $2,0($4)' \
		'synci 0($4)' 'jr $31' ;;
	riscv64) printf '%s\n' -march=rv64gc fence 'fence rw,rw' 'fence r,rw' fence.i fence.tso \
		'lr.w.aq a0,(a1)' 'lr.d a0,(a1)' 'sc.d.rl a0,a2,(a1)' 'amoswap.w.aqrl a0,a2,(a1)' \
		'amoadd.d a0,a2,(a1)' -- 'ld a0,0(a1)' 'sd a0,0(a1)' ret ;;
	s390x) printf '%s\n' -march=z196 'bcr 14,0' 'bcr 15,0' 'cs %r1,%r2,0(%r3)' 'csy %r1,%r2,0(%r3)' \
		'csg %r1,%r2,0(%r3)' 'cds %r0,%r2,0(%r3)' 'cdsg %r0,%r2,0(%r3)' 'laa %r1,%r2,0(%r3)' \
		'laag %r1,%r2,0(%r3)' 'lan %r1,%r2,0(%r3)' 'laxg %r1,%r2,0(%r3)' 'ts 0(%r3)' \
		'lpd %r0,0(%r3),8(%r3)' -- 'br %r14' 'bcr 15,%r1' 'bcr 14,%r1' 'lg %r1,0(%r2)' 'brasl %r14,.' ;;
	sparc*) printf '%s\n' "" 'membar #StoreLoad' 'membar #LoadLoad | #StoreStore' stbar \
		'cas [%o0], %o1, %o2' 'casx [%o0], %o1, %o2' 'casa [%o0] 0x80, %o1, %o2' \
		'ldstub [%o0], %o1' 'swap [%o0], %o1' -- 'ld [%o0], %o1' 'st %o1, [%o0]' 'retl' nop ;;
	m68k) printf '%s\n' -mcpu=68020 'cas.l %d0,%d1,(%a0)' 'cas2.l %d0:%d1,%d2:%d3,(%a0):(%a1)' \
		'tas (%a0)' 'cas.w %d0,%d1,(%a0)' -- 'move.l (%a0),%d0' 'move.l %d0,(%a0)' rts ;;
	esac
}

# walk OBJDUMP FILE ROOTS SLOW: the call path of each root in FILE's
# disassembly: every function reached from one by a direct branch, call or
# tail call (an instruction naming <function> or <function+offset>; PLT
# entries taken as their function, comments left out), transitively, but
# the functions named in SLOW, where it stops.  Writes FILE.insns, each
# instruction of each function reached, FILE.where, the path to it
# ("root>…>function", line for line), and FILE.reached, a line per function.
walk() {
	"$1" -d --no-show-raw-insn "$2" >"$2.dis" 2>/dev/null
	awk -v roots="$3" -v slow="$4" -v out="$2" '
	function name_of(s) { sub(/@plt$/, "", s); sub(/^\./, "", s); return s }
	/^[0-9a-f]+ <[^>]+>:$/ {
		cur = substr($2, 2, length($2) - 3)
		if (cur ~ /@plt$/) { cur = ""; next }
		cur = name_of(cur); order[++nf] = cur; isfn[cur] = 1; op1 = op2 = ""; next
	}
	/^$/ { cur = ""; next }
	cur != "" && /^ +[0-9a-f]+:/ {
		body[cur] = body[cur] $0 "\n"
		line = $0
		sub(/[ \t][#!@][ \t].*$/, "", line)
		# sparc: after a return and its delay slot, gas pads to the
		# alignment of the next function with "b,a <next>" over nops: not a call.
		split(line, w, /[ \t]+/); op = w[3]
		padding = op == "b,a" && (op2 ~ /^(retl|ret|return|jmp)$/)
		op2 = op1; op1 = op
		if (padding) next
		while (match(line, /<[^<>]+>/)) {
			t = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
			if (t !~ /^[^+-]+(\+0x[0-9a-f]+)?$/) continue
			sub(/\+0x[0-9a-f]+$/, "", t)
			callee[cur] = callee[cur] " " name_of(t)
		}
	}
	END {
		ns = split(slow, s, " "); for (i = 1; i <= ns; i++) stop[s[i]] = 1
		nr = split(roots, r, " ")
		for (i = 1; i <= nr; i++) if (r[i] in isfn) { queue[++tail] = r[i]; path[r[i]] = r[i] }
		for (head = 1; head <= tail; head++) {
			f = queue[head]
			printf "%s\n", f > (out ".reached")
			nl = split(body[f], lines, "\n")
			for (i = 1; i < nl; i++) { print lines[i] > (out ".insns"); print path[f] > (out ".where") }
			nc = split(callee[f], c, " ")
			for (i = 1; i <= nc; i++)
				if ((c[i] in isfn) && (c[i] in stop) && !(c[i] in stopped)) {
					stopped[c[i]] = 1; printf "%s\n", c[i] > (out ".stopped")
				} else if ((c[i] in isfn) && !(c[i] in path) && !(c[i] in stop)) {
					queue[++tail] = c[i]; path[c[i]] = path[f] ">" c[i]
				}
		}
	}' "$2.dis"
}

# The slow paths, where the walk stops: each runs once per process or per
# thread, before the route the calls read exists, as glibc's own first
# calls resolve its vDSO entries (in ld.so, before main).
#   vdsokit_lib_resolve: a process's first call finds the vDSO, fills the
#     routes and publishes them (src/vdso.c).
#   vdsokit_lib_clock_gettime_first, _getres_first: the clock routes'
#     function before resolution, which resolves and calls on (src/time.c).
#   vdsokit_lib_ensure_resolved: the other calls' way there, taken while
#     their route is still unset (src/vdso.c); its acquire load is what
#     makes the route it then reads the published one on weak ABIs.
#   first_state: a thread's first getrandom through the vDSO, which asks
#     the state's size and claims one off the shared list (src/random.c).
#   vdsokit_lib_drop_time32: a 32-bit-time entry whose answer overflowed
#     (past 2038) is dropped from its route, once (src/vdso.c).
slow_paths="vdsokit_lib_resolve vdsokit_lib_clock_gettime_first vdsokit_lib_clock_getres_first vdsokit_lib_ensure_resolved first_state vdsokit_lib_drop_time32"

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
	regex=$(barriers "$t_arch")
	# The checker's own check: each barrier of this ABI, assembled and
	# disassembled, is seen; the look-alikes are not.
	barrier_samples "$t_arch" >"$dir/samples"
	sed -n '2,/^--$/p' "$dir/samples" | sed '$d' >"$dir/barriers.s"
	sed -n '/^--$/,$p' "$dir/samples" | sed 1d >"$dir/plain.s"
	selftest=""
	for kind in barriers plain; do
		# shellcheck disable=SC2046
		if ! "$cc" $(head -1 "$dir/samples") -c -x assembler "$dir/$kind.s" -o "$dir/$kind.o" \
			>"$dir/as.err" 2>&1; then
			selftest="$selftest $kind.s does not assemble: $(grep -i error "$dir/as.err" | head -2 | tr '\n' ' ')"
			continue
		fi
		"$objdump" -d --no-show-raw-insn "$dir/$kind.o" | grep -E '^ +[0-9a-f]+:' | grep -v '[[:space:]]nop$' \
			>"$dir/$kind.dis"
		if [ $kind = barriers ]; then
			[ "$(wc -l <"$dir/$kind.dis")" -eq "$(wc -l <"$dir/$kind.s")" ] ||
				selftest="$selftest $(wc -l <"$dir/$kind.s") barriers assembled, $(wc -l <"$dir/$kind.dis") disassembled;"
			wrong=$(grep -vE "$regex" "$dir/$kind.dis")
		else
			wrong=$(grep -E "$regex" "$dir/$kind.dis")
		fi
		[ -z "$wrong" ] || selftest="$selftest $kind $([ $kind = barriers ] && echo unseen || echo seen):$(printf '%s\n' "$wrong" | cut -f2- | tr '\n' ';')"
	done
	if [ -z "$selftest" ]; then
		ok "$t_arch: the barrier regex sees each of $(wc -l <"$dir/barriers.dis") barriers assembled, and none of $(wc -l <"$dir/plain.dis") look-alikes"
	else
		not_ok "$t_arch: the barrier regex against $objdump's own output:$selftest"
	fi
	# The library as it ships (the shared library's -fPIC objects, the
	# project's flags), with no C library to link against: the calls into
	# it stay PLT calls, not followed (glibc's own are not ours to check).
	# -fstack-usage in OPT: the Makefile's compiler probes take CFLAGS, and
	# would leave their null.su in the tree.
	if ! make -s -j2 -C "$top" CC="$cc" AR="$t_triple-ar" BUILD="$dir" CFLAGS="$t_cflags" OPT="$opt -fstack-usage" \
		LDFLAGS=-nostdlib "$dir/lib/libvdsokit.so.$sover" >"$dir/cc.err" 2>&1; then
		not_ok "$t_arch: the shared library does not build with $cc $t_cflags"
		tail -20 "$dir/cc.err" | diag
		continue
	fi
	built=1
	for src in "$tmp/inline.c" "$tmp/tail.c"; do
		# shellcheck disable=SC2086
		if ! "$cc" $t_cflags -std=gnu11 -O2 -fstack-usage -Iinclude -D_GNU_SOURCE \
			-c "$src" -o "$dir/$(basename "$src" .c).o" 2>"$dir/cc.err"; then
			not_ok "$t_arch: $src does not compile with $cc $t_cflags"
			diag <"$dir/cc.err"
			built=0
		fi
	done
	[ $built = 1 ] || continue
	limit=$(($(min_frame "$t_arch") + 64))
	found="" frames="" big="" missing=""
	# The public calls' paths, in the shared library.
	lib=$dir/lib/libvdsokit.so.$sover
	: >"$lib.stopped"
	walk "$objdump" "$lib" "$calls $routed" "$slow_paths"
	for fn in $calls; do
		grep -qx "$fn" "$lib.reached" || missing="$missing $fn"
	done
	# Calls followed, and slow paths reached and stopped at: both show the walk reads calls.
	followed=$(grep -cvxF "$(printf '%s\n' $calls $routed)" "$lib.reached")
	followed=$((followed + $(wc -l <"$lib.stopped")))
	hits=$(grep -nE "$regex" "$lib.insns" | head -4 | while IFS=: read -r at insn; do
		printf ' %s: %s;' "$(sed -n "${at}p" "$lib.where")" "$(printf '%s' "$insn" | cut -f2- | tr '\t' ' ')"
	done)
	[ -n "$hits" ] && found="$found$hits"
	# The header's inlined calls, in the program that uses them: their own code.
	for fn in inline_clock_gettime inline_clock_getres inline_time inline_getcpu inline_getcpu_node; do
		text=$(body "$objdump" "$dir/inline.o" "$fn")
		# Absent where the header inlines nothing.
		[ -n "$text" ] || continue
		hits=$(printf '%s\n' "$text" | grep -E "$regex" | head -3 | sed 's/^[[:space:]]*//' | tr '\n' ';')
		[ -n "$hits" ] && found="$found $fn: $hits"
	done
	for fn in $calls inline_clock_gettime inline_clock_getres inline_time inline_getcpu inline_getcpu_node $routed; do
		frame=$(find "$dir" -name '*.su' -exec cat {} + | awk -F'\t' -v f="$fn" '{ n = split($1, p, ":"); if (p[n] == f) print $2 }' | head -1)
		[ -n "$frame" ] || continue
		frames="$frames $fn=$frame"
		[ "$frame" -gt "$limit" ] && big="$big $fn=$frame"
	done
	# A frame an asm opens is not in -fstack-usage's count (the powerpc
	# vDSO call's once was, 320 bytes): every stack-pointer update on the
	# paths, read from the instructions.
	asm_frames=$(grep -oE '(stdu|stwu)[[:space:]]+r1,-[0-9]+\(r1\)|(sub|add)[[:space:]]+\$0x[0-9a-f]+,%[er]sp' "$lib.insns" |
		awk -v limit="$limit" '{ n = $0; sub(/.*-/, "", n); sub(/\(r1\)/, "", n)
			if (n ~ /^\$0x/) { v = 0; h = substr(n, 4, index(n, ",") - 4)
				for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; n = v }
			if (n + 0 > limit) printf " %s", $0 }')
	[ -n "$asm_frames" ] && big="$big (on the paths:$asm_frames)"
	if [ -n "$missing" ]; then
		not_ok "$t_arch: public calls not found in the library:$missing"
	elif [ "$followed" -eq 0 ]; then
		not_ok "$t_arch: no call followed from the public calls (a walk that reads nothing)"
	elif [ -n "$found" ]; then
		not_ok "$t_arch: a barrier or atomic instruction on a public call's path:$found"
	else
		ok "$t_arch: no barrier on the public calls' paths ($followed functions they call, the slow paths stopped at included), nor in the inlined ones ($cc $t_cflags)"
	fi
	printf 'reached: %s\n' "$(tr '\n' ' ' <"$lib.reached")" | diag
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
	# MIPS n64, where the old route test cost most (a branch, then a
	# conditional move): the inlined clock calls are the slot's load and
	# the call, nothing chosen (include/vdsokit.h, vdsokit__clock_inline).
	case $t_arch in
	mips64el)
		# No inlining (a call to the library) fails too: the body must
		# load the slot and jump through it (jr/jalr), with no branch
		# (any mnemonic starting with b) and no conditional move.
		extra=""
		for fn in inline_clock_gettime inline_clock_getres; do
			text=$(body "$objdump" "$dir/inline.o" "$fn")
			b=$(printf '%s\n' "$text" | grep -cE '^[[:space:]]*[0-9a-f]+:[[:space:]]+b[a-z0-9]*[[:space:]]')
			m=$(printf '%s\n' "$text" | grep -cE '[[:space:]](movz|movn|seleqz|selnez)[[:space:]]')
			j=$(printf '%s\n' "$text" | grep -cE '[[:space:]](jr|jalr)[[:space:]]+t9')
			[ "$b" -eq 0 ] && [ "$m" -eq 0 ] && [ "$j" -ge 1 ] || extra="$extra $fn=$b branches, $m moves, $j jumps through t9"
		done
		if [ -z "$extra" ]; then
			ok "$t_arch: the inlined clock calls are the slot's load and a jump through it: no branch, no conditional move"
		else
			not_ok "$t_arch: the inlined clock calls are the slot's load and a jump through it:$extra"
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
