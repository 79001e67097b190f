/* SPDX-License-Identifier: MIT */
/*
 * Which of the library's syscalls a seccomp filter kills here
 * (SECCOMP_RET_KILL, systemd's SystemCallFilter= default): a fact about
 * the process's sandbox, learnt once from children, so that neither the
 * reference calls (checks/reference.h) nor the measurements make a call
 * that would kill the tool.
 */
#ifndef VDSOKIT_CLI_SYSCALL_KILLED_H
#define VDSOKIT_CLI_SYSCALL_KILLED_H

#include <stdbool.h>

#include "vdsokit.h"

/*
 * Whether the function's syscall is killed here.  The first call probes
 * them all in one child (each once, in order, the child saying which one
 * it is in), before the tool makes any directly; the answer is kept.
 */
bool syscall_killed(enum vdsokit_func fn);

#endif /* VDSOKIT_CLI_SYSCALL_KILLED_H */
