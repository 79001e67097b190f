// SPDX-License-Identifier: MIT
/*
 * getrandom's states, laid out for a state size that divides no page: the
 * synthetic image (tests/images, this architecture's callable.so) asks for
 * 300-byte states and fails a call whose state crosses a page (-EFAULT) or
 * has another length (-EINVAL).  48 threads hold one state each at once,
 * more than one page of them: every call must work, and the states must be
 * distinct, on cache lines of their own, none across a page.  Again with
 * x86_64's bigstate.so, whose 3,000-byte states fit one to a page: blocks
 * of one state per page, where b0e1ba1's first block was never marked
 * listed and no second block was ever added.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"

void *vdsokit_lib_random_thread_state(size_t *len);

#ifndef TEST_IMAGES
#define TEST_IMAGES "build/images"
#endif
#define THREADS 48
#define STATE_ALIGN 128

static pthread_barrier_t all_drawn;
static uintptr_t states[THREADS];
static ssize_t results[THREADS];

static void *draw(void *arg)
{
	size_t i = (size_t)(uintptr_t)arg;
	unsigned char buf[32];
	/* A first call that finds another thread mapping states takes the syscall: again. */
	for (int tries = 0; tries < 1000; tries++) {
		results[i] = vdsokit_getrandom(buf, sizeof(buf), 0);
		if (vdsokit_lib_random_thread_state(NULL))
			break;
		sched_yield();
	}
	for (size_t k = 0; results[i] == (ssize_t)sizeof(buf) && k < sizeof(buf); k++)
		if (buf[k] != 0xA5)
			results[i] = -1000; /* not the image's bytes: not its getrandom */
	states[i] = (uintptr_t)vdsokit_lib_random_thread_state(NULL);
	pthread_barrier_wait(&all_drawn); /* each holds its state until all have one */
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

/* The checks on one image, in a process of its own (an image is chosen once): 0, 1 failed, 2 skipped. */
static int layout(const char *variant, size_t want_len)
{
	const char *dir = getenv("VDSOKIT_IMAGES") ? getenv("VDSOKIT_IMAGES") : TEST_IMAGES;
	char path[512];
	/* The images' directories are named as the library names its architectures (ppc: ppc32). */
	const char *arch = strcmp(vdsokit_arch_name(), "ppc") == 0 ? "ppc32" : vdsokit_arch_name();
	snprintf(path, sizeof(path), "%s/%s/%s.so", dir, arch, variant);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		printf("# SKIP no synthetic image %s (make images)\n", path);
		return 2;
	}
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED || vdsokit_use_image(base, (size_t)st.st_size) != 0) {
		printf("# SKIP cannot map %s\n", path);
		return 2;
	}
	size_t len = 0;
	unsigned char one[8];
	vdsokit_getrandom(one, sizeof(one), 0);
	vdsokit_lib_random_thread_state(&len);
	struct vdsokit_route_info info;
	vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &info);
	if (info.route != VDSOKIT_ROUTE_VDSO || len != want_len) {
		printf("# SKIP getrandom is not the image's here (%s, %s; state %zu bytes)\n",
		       vdsokit_route_name(info.route), vdsokit_reason_text(info.reason), len);
		return 2;
	}
	pthread_barrier_init(&all_drawn, NULL, THREADS);
	pthread_t t[THREADS];
	for (size_t i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, draw, (void *)(uintptr_t)i)) {
			printf("Bail out! pthread_create\n");
			exit(1);
		}
	for (size_t i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), failed = 0, crossing = 0, unaligned = 0, shared = 0;
	for (size_t i = 0; i < THREADS; i++) {
		failed += results[i] != 32;
		crossing += states[i] % page + len > page;
		unaligned += states[i] % STATE_ALIGN != 0;
	}
	qsort(states, THREADS, sizeof(states[0]), cmp);
	for (size_t i = 1; i < THREADS; i++)
		shared += states[i] - states[i - 1] < STATE_ALIGN;
	ok(failed == 0, "%s: %d threads holding %zu-byte states at once: every call answered by the image "
	   "(%zu failed: a state across a page gets -EFAULT, a wrong length -EINVAL)", variant, THREADS, len, failed);
	ok(crossing == 0, "%s: no state crosses a %zu-byte page (%zu do)", variant, page, crossing);
	ok(unaligned == 0 && shared == 0 && states[0] != 0,
	   "%s: the states are distinct, each on cache lines of its own (%zu unaligned, %zu too close)", variant,
	   unaligned, shared);
	return tap_failed != 0;
}

#define CHECKS_PER_IMAGE 3

int main(void)
{
	static const struct {
		const char *variant;
		size_t state_size;
	} images[] = { { "callable", 300 }, { "bigstate", 3000 } };
	int ran = 0;
	for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			_exit(layout(images[i].variant, images[i].state_size));
		int status = 0;
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 1) {
			if (pid < 0 || !WIFEXITED(status))
				printf("not ok %d - %s: the child crashed\n", ++tap_count, images[i].variant);
			else
				tap_count += CHECKS_PER_IMAGE;
			tap_failed = 1;
			ran = 1;
			continue;
		}
		if (WEXITSTATUS(status) == 0) {
			tap_count += CHECKS_PER_IMAGE;
			ran = 1;
		}
	}
	if (!ran)
		printf("1..0 # SKIP no synthetic image could be used here\n");
	else
		printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
