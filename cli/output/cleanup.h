/* SPDX-License-Identifier: MIT */
/*
 * What the tool removes when it ends early: the one file it is writing and
 * has created (a temporary beside the target, or a target it created in
 * place).  Every signal whose default action ends the process and that
 * another process sends (INT, TERM, HUP, QUIT, USR1, USR2, ALRM, the
 * real-time ones...) removes it, erases the progress line and exits with
 * 128 + the signal; exit() removes it too.  Nothing else is ever removed.
 */
#ifndef VDSOKIT_CLI_CLEANUP_H
#define VDSOKIT_CLI_CLEANUP_H

/* Installs those handlers and the exit hook; main() calls it once. */
void cleanup_install(void);

/* The file to remove if the tool ends before cleanup_forget(); one at a time. */
void cleanup_remember(const char *path);
void cleanup_forget(void);

#endif /* VDSOKIT_CLI_CLEANUP_H */
