/* SPDX-License-Identifier: MIT */
/*
 * The one way the tool starts a child process: it dies with the tool (a
 * parent-death SIGKILL, checked against a parent already gone; where that
 * is refused, it ends by itself: see child.c), it is
 * always reaped, and stopping it never hangs, even where a sandbox
 * refuses kill().
 */
#ifndef VDSOKIT_CLI_CHILD_H
#define VDSOKIT_CLI_CHILD_H

#include <sys/types.h>

/*
 * fork() for a child that must not outlive its parent: pid once the
 * child has done its setup, 0 in the child, -1 when there is no such
 * child (errno; ECHILD: it died in its setup), child_start_why saying why.
 */
pid_t child_start(void);

/*
 * Why the last child_start failed, for a sentence: "fork: ...", "the child
 * process died in its setup, at prctl(PR_SET_PDEATHSIG): killed by SIGSYS
 * (a seccomp filter refuses the syscall)".
 */
const char *child_start_why(void);

/* Waits for the child (through EINTR): 0, or -errno; *status its wait status. */
int child_wait(pid_t pid, int *status);

/*
 * child_wait with a deadline that needs no signal (alarm() may be refused):
 * past it, the child is stopped (child_stop) and -ETIMEDOUT returned, or
 * child_stop's -errno when it could not be killed (then not reaped).
 */
int child_wait_within(pid_t pid, int *status, double seconds);

/*
 * Ends the child (SIGKILL) and reaps it.  When kill() is refused the
 * child is left to end by itself: its parent-death signal when the tool
 * exits, or, that refused too, its own end (abi's sleeper: its pipe's EOF
 * at the tool's exit): 0, or the -errno of kill().
 */
int child_stop(pid_t pid);

#endif /* VDSOKIT_CLI_CHILD_H */
