/* SPDX-License-Identifier: MIT */
/*
 * See cleanup.h.  The handler only calls async-signal-safe functions
 * (getpid, unlink, write, sigaction, sigprocmask, raise, _exit), and acts
 * only in the process that created the file: a forked child (abi's,
 * verify's) that is interrupted with the tool must not remove its parent's
 * file, and dies of the signal as it would have without the handler (its
 * SIGALRM timeout is how its parent knows it hung).
 *
 * The signals a fault raises (SEGV, BUS, ILL, FPE, TRAP, SYS, ABRT) are
 * left alone: they are a bug's or a sandbox's, and must crash as they are.
 */
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/cleanup.h"
#include "output/output.h"

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
	if (getpid() != owner) {
		/* Not the tool's process: the signal's own default action. */
		struct sigaction dfl;
		sigset_t set;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
		_exit(128 + sig);
	}
	remove_ours();
	progress_erase_from_signal();
	_exit(128 + sig);
}

/* Whether sig's default action ends the process and it is not a fault's (see above). */
static bool terminating(int sig)
{
	switch (sig) {
	case SIGINT: case SIGTERM: case SIGHUP: case SIGQUIT: case SIGUSR1: case SIGUSR2:
	case SIGALRM: case SIGVTALRM: case SIGPROF: case SIGPIPE: case SIGXCPU: case SIGXFSZ:
	case SIGIO: case SIGPWR:
#ifdef SIGSTKFLT
	case SIGSTKFLT:
#endif
		return true;
	default:
		return sig >= SIGRTMIN && sig <= SIGRTMAX;
	}
}

void cleanup_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	/* The owner until a file is remembered: a child's handler re-raises. */
	owner = getpid();
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;
		if (!terminating(sig))
			continue;
		/* An ignored signal (nohup, main's SIGPIPE and SIGXFSZ) stays ignored. */
		if (sigaction(sig, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
			continue;
		sigaction(sig, &sa, NULL);
	}
	atexit(remove_ours);
}
