/* SPDX-License-Identifier: MIT */
/*
 * The one way the tool starts a child process: it dies with the tool (a
 * parent-death SIGKILL, checked against a parent already gone), it is
 * always reaped, and stopping it never hangs, even where a sandbox
 * refuses kill().
 */
#ifndef VDSOKIT_CLI_CHILD_H
#define VDSOKIT_CLI_CHILD_H

#include <sys/types.h>

/* fork() for a child that must not outlive its parent: pid, 0 in the child, -1 and errno. */
pid_t child_start(void);

/* Waits for the child (through EINTR): 0, or -errno; *status its wait status. */
int child_wait(pid_t pid, int *status);

/*
 * Ends the child (SIGKILL) and reaps it.  When kill() is refused the
 * child is left to its parent-death signal, which ends it when the tool
 * exits: 0, or the -errno of kill().
 */
int child_stop(pid_t pid);

#endif /* VDSOKIT_CLI_CHILD_H */
