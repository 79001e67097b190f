/* SPDX-License-Identifier: MIT */
/*
 * Running checks in a time namespace with offsets, entered after the library
 * was initialised: unshare(CLONE_NEWTIME) gives the namespace to children
 * only, so the offsets are written and the checks run in a forked child,
 * whose TAP lines continue the parent's numbering.  The child writes them
 * to a file the parent then prints and counts: a child that crashed
 * half-way leaves the numbering and the plan whole, and its end is one
 * more "not ok" with its wait status.  Needs root; anything missing is a
 * SKIP with the reason.
 */
#ifndef VDSOKIT_TEST_TIMENS_H
#define VDSOKIT_TEST_TIMENS_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define TIMENS_MONOTONIC_OFFSET 864000 /* 10 days: unmistakable, far from any limit */
#define TIMENS_BOOTTIME_OFFSET (2 * TIMENS_MONOTONIC_OFFSET)

struct timens_child {
	void (*checks)(void);
	FILE *lines; /* where its TAP lines go */
};

static int timens_child_main(void *arg)
{
	const struct timens_child *child = arg;
	if (dup2(fileno(child->lines), STDOUT_FILENO) < 0)
		return 1;
	child->checks();
	return 0;
}

/*
 * Prints the child's lines and counts its checks into tap.h's totals: the
 * child numbered them from the parent's count, so they simply continue.
 * The number of checks the child made.
 */
static int timens_relay(FILE *lines)
{
	char line[1024];
	int checks = 0;
	rewind(lines);
	while (fgets(line, sizeof(line), lines)) {
		fputs(line, stdout);
		if (strncmp(line, "ok ", 3) == 0 || strncmp(line, "not ok ", 7) == 0) {
			checks++;
			tap_count++;
			tap_failed += line[0] == 'n';
		}
	}
	fflush(stdout);
	return checks;
}

/* Runs checks() in a child inside a new time namespace; 0, or -1 after a SKIP. */
static int timens_run(void (*checks)(void))
{
	if (geteuid() != 0) {
		skip("time namespace: needs root (unshare(CLONE_NEWTIME))");
		return -1;
	}
	if (unshare(CLONE_NEWTIME) != 0) {
		skip("time namespace: unshare(CLONE_NEWTIME) failed: %s", strerror(errno));
		return -1;
	}
	char offsets[128];
	snprintf(offsets, sizeof(offsets), "monotonic %d 0\nboottime %d 0\n",
		 TIMENS_MONOTONIC_OFFSET, TIMENS_BOOTTIME_OFFSET);
	int fd = open("/proc/self/timens_offsets", O_WRONLY);
	ssize_t written = fd < 0 ? -1 : write(fd, offsets, strlen(offsets));
	int saved = errno;
	if (fd >= 0)
		close(fd);
	if (written != (ssize_t)strlen(offsets)) {
		skip("time namespace: writing /proc/self/timens_offsets failed: %s", strerror(saved));
		return -1;
	}
	FILE *lines = tmpfile();
	if (!lines) {
		skip("time namespace: no file for the child's TAP lines: %s", strerror(errno));
		return -1;
	}
	struct timens_child child = { checks, lines };
	int status = run_in_child(timens_child_main, &child, 0);
	int relayed = timens_relay(lines);
	fclose(lines);
	if (!child_passed(status))
		ok(0, "time namespace: the child did not finish its checks (%s, after %d)",
		   wait_status_text(status).text, relayed);
	return 0;
}

#endif
