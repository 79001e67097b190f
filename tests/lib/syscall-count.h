/* SPDX-License-Identifier: MIT */
/*
 * Counting the syscalls one thread makes, from inside the process, on every
 * architecture: the thread installs a seccomp filter whose listed syscalls
 * (or all of them) go to a user-space supervisor (SECCOMP_RET_USER_NOTIF);
 * the supervisor, another thread, counts each one while counting is on and
 * lets it run unchanged (SECCOMP_USER_NOTIF_FLAG_CONTINUE, Linux 5.5+).
 * Works static and unprivileged (no_new_privs); qemu-user has no seccomp,
 * and musl-gcc no kernel headers: counter_start then fails and the caller
 * SKIPs.
 *
 * A notified syscall waits for the supervisor's answer, so a count read by
 * the watched thread after its calls includes all of them.
 */
#ifndef VDSOKIT_TEST_SYSCALL_COUNT_H
#define VDSOKIT_TEST_SYSCALL_COUNT_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/seccomp.h>) && __has_include(<linux/filter.h>)
#include <linux/filter.h>
#include <linux/seccomp.h>
#define SYSCALL_COUNT_POSSIBLE 1
#else
#define SYSCALL_COUNT_POSSIBLE 0
struct seccomp_notif {
	int unused;
};
#endif

struct syscall_counter {
	int fd;            /* the listener; -1 until installed, -2 on failure */
	int counting;      /* atomic: count only while set                    */
	int count;         /* atomic                                          */
	int first_nr;      /* the first and last syscall counted since         */
	int last_nr;       /* counter_on (valid when count > 0)                */
	uint64_t last_ip;  /* where the last one entered the kernel: the
			      instruction after its syscall instruction      */
	pthread_t supervisor;
};

/* Installs the filter in the calling thread; the listener fd, or -1. */
static int counter_install_filter(const long *nrs, int n)
{
#if !SYSCALL_COUNT_POSSIBLE
	(void)nrs, (void)n;
	return -1;
#else
	struct sock_filter prog[64];
	int len = 0;
	if (n > 30)
		return -1;
	prog[len++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						   offsetof(struct seccomp_data, nr));
	for (int i = 0; i < n; i++) {
		prog[len++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							   (unsigned)nrs[i], 0, 1);
		prog[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	}
	prog[len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						   n ? SECCOMP_RET_ALLOW : SECCOMP_RET_USER_NOTIF);
	struct sock_fprog fprog = { .len = (unsigned short)len, .filter = prog };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			    &fprog);
#endif
}

/*
 * Refuses syscall nr with err (SECCOMP_RET_ERRNO) in the calling thread and
 * the threads it creates later, as a sandbox's filter does; every other
 * syscall runs.  0, or -1 when seccomp filters are unavailable.
 */
__attribute__((unused)) static int seccomp_refuse(long nr, int err)
{
#if !SYSCALL_COUNT_POSSIBLE
	(void)nr, (void)err;
	return -1;
#else
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = { .len = sizeof(prog) / sizeof(prog[0]), .filter = prog };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) ? -1 : 0;
#endif
}

/* Receives one notification; 0 with its syscall number, -1 when the watched threads are gone. */
static int counter_receive(int fd, struct seccomp_notif *req)
{
	memset(req, 0, sizeof(*req));
#if SYSCALL_COUNT_POSSIBLE
	while (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, req) != 0)
		if (errno != EINTR)
			return -1;
	return 0;
#else
	(void)fd;
	return -1;
#endif
}

static void counter_continue(int fd, const struct seccomp_notif *req)
{
#if SYSCALL_COUNT_POSSIBLE
	struct seccomp_notif_resp resp;
	memset(&resp, 0, sizeof(resp));
	resp.id = req->id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
#else
	(void)fd, (void)req;
#endif
}

static void *counter_supervise(void *arg)
{
	struct syscall_counter *c = arg;
	int fd;
	while ((fd = __atomic_load_n(&c->fd, __ATOMIC_ACQUIRE)) == -1)
		sched_yield();
	if (fd < 0)
		return NULL;
	struct seccomp_notif req;
	while (counter_receive(fd, &req) == 0) {
		if (__atomic_load_n(&c->counting, __ATOMIC_ACQUIRE)) {
#if SYSCALL_COUNT_POSSIBLE
			if (__atomic_load_n(&c->count, __ATOMIC_ACQUIRE) == 0)
				c->first_nr = req.data.nr;
			c->last_nr = req.data.nr;
			c->last_ip = req.data.instruction_pointer;
#endif
			__atomic_add_fetch(&c->count, 1, __ATOMIC_RELEASE);
		}
		counter_continue(fd, &req);
	}
	return NULL;
}

/*
 * Watches the calling thread (and threads it creates later): nrs[0..n) or,
 * with n == 0, every syscall.  0, or -1 when seccomp filters are unavailable.
 */
static int counter_start(struct syscall_counter *c, const long *nrs, int n)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	/* The supervisor first: once filtered, creating it would wait on itself. */
	if (pthread_create(&c->supervisor, NULL, counter_supervise, c))
		return -1;
	int fd = counter_install_filter(nrs, n);
	__atomic_store_n(&c->fd, fd < 0 ? -2 : fd, __ATOMIC_RELEASE);
	if (fd < 0) {
		pthread_join(c->supervisor, NULL);
		return -1;
	}
	pthread_detach(c->supervisor); /* it ends when the watched threads are gone */
	return 0;
}

static void counter_on(struct syscall_counter *c)
{
	__atomic_store_n(&c->count, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&c->counting, 1, __ATOMIC_RELEASE);
}

/* Stops counting; the number of syscalls since counter_on. */
static int counter_off(struct syscall_counter *c)
{
	__atomic_store_n(&c->counting, 0, __ATOMIC_RELEASE);
	return __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
}

#endif
