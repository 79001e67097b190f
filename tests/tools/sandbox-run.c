/* SPDX-License-Identifier: MIT */
/*
 * sandbox-run: runs a command under a seccomp filter that refuses the named
 * syscalls, as a container runtime or a CI sandbox would, so that the tests
 * can see what vdsokit does when its reference syscall is denied.
 *
 *   sandbox-run [--errno NAME|N | --kill] SYSCALL[,SYSCALL...] -- COMMAND [ARG...]
 *
 *   --errno EPERM   the refused syscall fails with that errno (the default
 *                   is EPERM; ENOSYS is what a filter unaware of a newer
 *                   syscall returns)
 *   --kill          the refused syscall kills the process (SIGSYS)
 *   SYSCALL         a name from the table below, or a number; NAME@N=V
 *                   refuses it only when its argument N (0-5) is V (the
 *                   low 32 bits compared): clock_gettime@0=1 refuses
 *                   CLOCK_MONOTONIC and lets the other clocks through, a
 *                   sandbox that refuses a call the tool's first probe
 *                   did not make
 *
 * Exit status: the command's; 125 for a usage error or a filter the kernel
 * refused, 126 when the architecture is not supported, 127 when the
 * command cannot be run.
 *
 * The filter checks the audit architecture first: a syscall made through
 * another ABI (int $0x80 on x86_64) has other numbers, so anything but the
 * native ABI is refused outright instead of slipping through.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define MAX_REFUSED 48

static const struct {
	const char *name;
	long nr;
} syscalls[] = {
#ifdef SYS_clock_gettime
	{ "clock_gettime", SYS_clock_gettime },
#endif
#ifdef SYS_clock_getres
	{ "clock_getres", SYS_clock_getres },
#endif
#ifdef SYS_gettimeofday
	{ "gettimeofday", SYS_gettimeofday },
#endif
#ifdef SYS_time
	{ "time", SYS_time },
#endif
#ifdef SYS_getrandom
	{ "getrandom", SYS_getrandom },
#endif
#ifdef SYS_getcpu
	{ "getcpu", SYS_getcpu },
#endif
#ifdef SYS_sched_getaffinity
	{ "sched_getaffinity", SYS_sched_getaffinity },
#endif
#ifdef SYS_sched_setaffinity
	{ "sched_setaffinity", SYS_sched_setaffinity },
#endif
#ifdef SYS_uname
	{ "uname", SYS_uname },
#endif
#ifdef SYS_openat
	{ "openat", SYS_openat },
#endif
#ifdef SYS_clone
	{ "clone", SYS_clone },
#endif
#ifdef SYS_clone3
	{ "clone3", SYS_clone3 },
#endif
#ifdef SYS_unshare
	{ "unshare", SYS_unshare },
#endif
#ifdef SYS_rseq
	{ "rseq", SYS_rseq },
#endif
#ifdef SYS_kill
	{ "kill", SYS_kill },
#endif
#ifdef SYS_readlink
	{ "readlink", SYS_readlink },
#endif
#ifdef SYS_readlinkat
	{ "readlinkat", SYS_readlinkat },
#endif
#ifdef SYS_prctl
	{ "prctl", SYS_prctl },
#endif
#ifdef SYS_clock_gettime64
	{ "clock_gettime64", SYS_clock_gettime64 },
#endif
#ifdef SYS_clock_getres_time64
	{ "clock_getres_time64", SYS_clock_getres_time64 },
#endif
#ifdef SYS_futex
	{ "futex", SYS_futex },
#endif
#ifdef SYS_futex_time64
	{ "futex_time64", SYS_futex_time64 },
#endif
#ifdef SYS_clock_nanosleep
	{ "clock_nanosleep", SYS_clock_nanosleep },
#endif
#ifdef SYS_nanosleep
	{ "nanosleep", SYS_nanosleep },
#endif
#ifdef SYS_wait4
	{ "wait4", SYS_wait4 },
#endif
#ifdef SYS_madvise
	{ "madvise", SYS_madvise },
#endif
#ifdef SYS_alarm
	{ "alarm", SYS_alarm },
#endif
#ifdef SYS_setitimer
	{ "setitimer", SYS_setitimer },
#endif
};

static int usage(const char *why)
{
	fprintf(stderr, "sandbox-run: %s\n"
		"Usage: sandbox-run [--errno NAME|N | --kill] SYSCALL[,SYSCALL...] -- COMMAND [ARG...]\n",
		why);
	return 125;
}

static long syscall_number(const char *name)
{
	for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (strcmp(name, syscalls[i].name) == 0)
			return syscalls[i].nr;
	char *end;
	errno = 0;
	long nr = strtol(name, &end, 10);
	if (errno || end == name || *end || nr < 0 || nr > 4095)
		return -1;
	return nr;
}

static int errno_number(const char *text)
{
	static const struct { const char *name; int value; } names[] = {
		{ "EPERM", EPERM }, { "ENOSYS", ENOSYS }, { "EACCES", EACCES }, { "EINVAL", EINVAL },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(text, names[i].name) == 0)
			return names[i].value;
	char *end;
	long v = strtol(text, &end, 10);
	/* SECCOMP_RET_DATA carries 16 bits; the kernel caps errno at 4095. */
	return end != text && !*end && v > 0 && v <= 4095 ? (int)v : -1;
}

int main(int argc, char **argv)
{
	unsigned action = SECCOMP_RET_ERRNO | EPERM;
	int i = 1;
	for (; i < argc && strncmp(argv[i], "--", 2) == 0 && argv[i][2]; i++) {
		if (strcmp(argv[i], "--kill") == 0) {
			action = SECCOMP_RET_KILL_PROCESS;
		} else if (strcmp(argv[i], "--errno") == 0 && i + 1 < argc) {
			int e = errno_number(argv[++i]);
			if (e < 0)
				return usage("--errno needs EPERM, ENOSYS, EACCES, EINVAL or 1-4095");
			action = SECCOMP_RET_ERRNO | (unsigned)e;
		} else {
			return usage("unknown option");
		}
	}
	if (i + 2 >= argc || strcmp(argv[i + 1], "--") != 0)
		return usage("need SYSCALL[,SYSCALL...] -- COMMAND");

	long refused[MAX_REFUSED];
	int arg_index[MAX_REFUSED];      /* -1: refused whatever its arguments */
	unsigned long arg_value[MAX_REFUSED];
	unsigned count = 0;
	char *list = argv[i], *save = NULL;
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (count == MAX_REFUSED)
			return usage("too many syscalls");
		arg_index[count] = -1;
		char *at = strchr(name, '@');
		if (at) {
			char *end;
			*at = 0;
			if (at[1] < '0' || at[1] > '5' || at[2] != '=' || !at[3])
				return usage("NAME@N=V: N is 0 to 5, V a number");
			arg_index[count] = at[1] - '0';
			errno = 0;
			arg_value[count] = strtoul(at + 3, &end, 0);
			if (errno || *end)
				return usage("NAME@N=V: V is a number");
		}
		/* A name from the table, or a number for any other syscall of this ABI. */
		char *end;
		long nr = strtol(name, &end, 10);
		refused[count] = *name && !*end && nr >= 0 ? nr : syscall_number(name);
		if (refused[count] < 0) {
			fprintf(stderr, "sandbox-run: unknown syscall '%s'\n", name);
			return 125;
		}
		count++;
	}
	if (!count)
		return usage("no syscall named");
	char **command = argv + i + 2;

#ifndef NATIVE_AUDIT_ARCH
	(void)action;
	(void)command;
	fprintf(stderr, "sandbox-run: no filter for this architecture\n");
	return 126;
#else
	/*
	 * load arch; foreign ABI -> kill; load nr; one test per refused
	 * number (equal: jump to the refusal at the end), or for NAME@N=V
	 * four: number unequal -> over the next three; load the argument's
	 * low word; equal -> the refusal; load nr again; then allow.
	 */
	struct sock_filter prog[4 + 4 * MAX_REFUSED + 2];
	unsigned length = 4 + 2, n = 0;
	for (unsigned k = 0; k < count; k++)
		length += arg_index[k] < 0 ? 1 : 4;
	const unsigned refusal = length - 1;
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (unsigned k = 0; k < count; k++) {
		if (arg_index[k] < 0) {
			/* jt: over the remaining tests and the allow, to the refusal. */
			prog[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							       (unsigned)refused[k],
							       (unsigned char)(refusal - n - 1), 0);
			n++;
			continue;
		}
		unsigned offset = offsetof(struct seccomp_data, args) + 8 * (unsigned)arg_index[k];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		offset += 4;
#endif
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 (unsigned)refused[k], 0, 3);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset);
		prog[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						       (unsigned)arg_value[k],
						       (unsigned char)(refusal - n - 1), 0);
		n++;
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							 offsetof(struct seccomp_data, nr));
	}
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
	struct sock_fprog fprog = { .len = (unsigned short)n, .filter = prog };

	/* Without it an unprivileged process may not install a filter. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("sandbox-run: PR_SET_NO_NEW_PRIVS");
		return 125;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) {
		perror("sandbox-run: SECCOMP_SET_MODE_FILTER");
		return 125;
	}
	execvp(command[0], command);
	fprintf(stderr, "sandbox-run: %s: %s\n", command[0], strerror(errno));
	return 127;
#endif
}
