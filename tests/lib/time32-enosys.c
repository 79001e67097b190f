// SPDX-License-Identifier: MIT
/*
 * A kernel without the 32-bit-time syscalls (CONFIG_COMPAT_32BIT_TIME off),
 * reproduced by a seccomp filter that answers them ENOSYS: where the
 * library calls a 32-bit-time vDSO entry (i386's clock_getres before Linux
 * 7.0), a clock id the entry cannot serve sends it to its own fallback,
 * the missing syscall.  The library must then ask the 64-bit-time syscall,
 * so an invalid clock is EINVAL, never ENOSYS; inlined and out of line.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__i386__) && __has_include(<linux/seccomp.h>) && __has_include(<linux/filter.h>)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#define TESTED_HERE 1
#else
#define TESTED_HERE 0
#endif

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

#define BAD_CLOCK 100 /* 100 mod 32 = 4: MONOTONIC_RAW's bit, which the vDSO serves */

#if TESTED_HERE
static int refuse_time32_syscalls(void)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clock_getres, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clock_gettime, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_gettimeofday, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_time, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};
	struct sock_fprog fprog = { (unsigned short)(sizeof(prog) / sizeof(prog[0])), prog };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) ? -1 : 0;
}

/* 0: EINVAL both ways; 1: inline wrong; 2: out of line wrong; 3: no filter. */
static int invalid_clock_without_time32(void *unused)
{
	(void)unused;
	struct vdsokit_timespec ts;
	vdsokit_init();
	if (refuse_time32_syscalls())
		return 3;
	if (vdsokit_clock_getres(BAD_CLOCK, &ts) != -EINVAL ||
	    vdsokit_clock_gettime(BAD_CLOCK, &ts) != -EINVAL)
		return 1;
	if ((vdsokit_clock_getres)(BAD_CLOCK, &ts) != -EINVAL ||
	    (vdsokit_clock_gettime)(BAD_CLOCK, &ts) != -EINVAL)
		return 2;
	return 0;
}
#endif

int main(void)
{
#if TESTED_HERE
	int status = run_in_child(invalid_clock_without_time32, NULL, 20);
	if (child_exited(status) && WEXITSTATUS(status) == 3)
		skip("clock id %d without the 32-bit-time syscalls: no seccomp filters here", BAD_CLOCK);
	else
		ok(child_passed(status), "clock id %d without the 32-bit-time syscalls (ENOSYS): EINVAL "
		   "from clock_getres and clock_gettime, inlined and out of line (%s)", BAD_CLOCK,
		   wait_status_text(status).text);
#else
	skip("clock id %d without the 32-bit-time syscalls: an i386 test (its vDSO's 32-bit-time "
	     "entries)", BAD_CLOCK);
#endif
	return done_testing();
}
