/* SPDX-License-Identifier: MIT */
/*
 * See cleanup.h.  The handler only calls async-signal-safe functions
 * (getpid, unlink, write, _exit), and acts only in the process that
 * created the file: a forked child (abi's, verify's) that is interrupted
 * with the tool must not remove its parent's file.
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/cleanup.h"

static char path_to_remove[PATH_MAX];
static volatile sig_atomic_t armed;
static pid_t owner;

void cleanup_remember(const char *path)
{
	size_t n = strlen(path);
	if (n >= sizeof(path_to_remove))
		return;   /* longer than any path open() takes */
	armed = 0;
	memcpy(path_to_remove, path, n + 1);
	owner = getpid();
	armed = 1;
}

void cleanup_forget(void)
{
	armed = 0;
}

static void remove_ours(void)
{
	if (armed && getpid() == owner) {
		armed = 0;
		unlink(path_to_remove);
	}
}

static void on_signal(int sig)
{
	remove_ours();
	_exit(128 + sig);
}

void cleanup_install(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct sigaction old;
		/* An ignored signal (nohup) stays ignored. */
		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(signals[i], &sa, NULL);
	}
	atexit(remove_ours);
}
