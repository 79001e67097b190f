/* SPDX-License-Identifier: MIT */
/*
 * Whether this process's threads can wait for each other.  The C library
 * waits on a contended lock or a join with the futex syscall; where that
 * fails (a kernel without the 32-bit time syscalls, CONFIG_COMPAT_32BIT_TIME
 * off, under glibc 2.36's i386 futex, or a seccomp filter refusing futex)
 * glibc aborts the process with "The futex facility returned an unexpected
 * error code".  The threaded checks ask first and skip with the reason.
 */
#ifndef VDSOKIT_CLI_THREADS_H
#define VDSOKIT_CLI_THREADS_H

/* NULL when threads can wait; else why not, in a sentence (static storage). */
const char *threads_cannot_wait(void);

#endif /* VDSOKIT_CLI_THREADS_H */
