/* SPDX-License-Identifier: MIT */
/*
 * Interfaces shared by the correctness commands (verify, abi, doctor):
 * check records with their verdict and figures, names for signals, the
 * kernel's CPU-clock id encoding, and the pieces of verify that run both
 * in this process and in a child inside a time namespace.
 *
 * The --image loader they use is the images layer's (images/images.h).
 */
#ifndef VDSOKIT_CLI_CHECKS_H
#define VDSOKIT_CLI_CHECKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cli.h"
#include "vdsokit.h"

/* ---------------------------------------------------------------------- */
/* Check records                                                           */
/* ---------------------------------------------------------------------- */

/*
 * CHECK_VDSO_DIFFERS: the raw vDSO symbol disagrees with the syscall on a
 * call the library does not send to the vDSO (the auxiliary clocks: Linux
 * 6.17/6.18's clock_getres(16..23) succeeds where the syscall says
 * EINVAL).  A finding about the kernel, named as such; not a failure of
 * what the library returns, which is checked on its own.
 */
enum check_status { CHECK_PASS, CHECK_FAIL, CHECK_SKIP, CHECK_VDSO_DIFFERS };

/* "pass", "fail", "skip", "vdso-differs": also the JSON values. */
const char *check_status_name(enum check_status status);

#define CHECK_MAX_NUMBERS 8

/* A figure behind a verdict; key and unit are string literals. */
struct check_number {
	const char *key;
	const char *unit;          /* "ns", "s", "calls", "" */
	long long value;
};

/*
 * One verdict.  Plain data with no pointers but to string literals, so a
 * child process can fill records in shared memory for its parent.
 */
struct check_result {
	char group[32];            /* "clock_gettime", "timens", …            */
	char name[64];             /* "clock_gettime(MONOTONIC)"              */
	enum check_status status;
	char detail[320];          /* the reason and the numbers, for people  */
	unsigned number_count;
	struct check_number numbers[CHECK_MAX_NUMBERS];
};

/* Caller-provided storage: heap for the process itself, shared pages for a child. */
struct check_list {
	struct check_result *items;
	unsigned count, capacity;
	unsigned dropped;          /* records that did not fit */
};

/*
 * A fresh record named printf-style, status pass; when the list is full a
 * scratch record is returned (and counted in `dropped`) so that callers
 * never need to test the result.
 */
struct check_result *check_add(struct check_list *list, const char *group,
			       const char *name_fmt, ...)
	__attribute__((format(printf, 3, 4)));
void check_set(struct check_result *r, enum check_status status, const char *detail_fmt, ...)
	__attribute__((format(printf, 3, 4)));
void check_number(struct check_result *r, const char *key, const char *unit, long long value);

/* Verdict counts. */
struct check_counts {
	unsigned pass, fail, skip, vdso_differs;
};
struct check_counts check_count(const struct check_list *list);

/* ---------------------------------------------------------------------- */
/* Small facts                                                             */
/* ---------------------------------------------------------------------- */

/* The clock ids verify and abi call invalid: the syscall rejects them. */
extern const long invalid_clock_ids[];
extern const unsigned invalid_clock_id_count;

/*
 * Nothing can be checked against a refused reference syscall
 * (syscall_refused): the check is a skip that says so, never a failure
 * of the vDSO.
 */
/* Marks r skipped: "the NAME syscall, the reference, fails here: EPERM (…)". */
void check_skip_refused(struct check_result *r, const char *syscall, int result);
/*
 * Marks r skipped after a reference call inside its loop failed
 * (reference_answered): refused, as check_skip_refused; any other error,
 * "the NAME syscall, the reference, failed during the run: EINVAL".
 * what, if not NULL, says which call ("CLOCK_REALTIME_COARSE").
 */
void check_skip_reference(struct check_result *r, const char *syscall, const char *what, long error);
/* 0 when the clock_gettime syscall reads CLOCK_REALTIME here, else its negative errno. */
int reference_clock_error(void);

/* ---------------------------------------------------------------------- */
/* verify's checks (verify_*.c)                                            */
/* ---------------------------------------------------------------------- */

/* clock_gettime of ids 0–11 against a syscall sandwich, invalid ids rejected alike. */
void verify_clock_gettime(struct check_list *out, const char *group, double seconds);
/* clock_getres equal to the syscall's for every id. */
void verify_clock_getres(struct check_list *out, const char *group);
/*
 * The auxiliary clocks (ids 16-23, Linux 6.17+), which the library sends
 * to the syscall: clock_gettime and clock_getres of the library equal to
 * the syscall's; the raw vDSO's differences reported as CHECK_VDSO_DIFFERS.
 */
void verify_aux_clocks(struct check_list *out, const char *group, double seconds);
/* gettimeofday against CLOCK_REALTIME, its timezone; time() against the seconds. */
void verify_gettimeofday_and_time(struct check_list *out, const char *group, double seconds);
/* getcpu equal to the syscall's while the thread visits every allowed CPU. */
void verify_getcpu(struct check_list *out, const char *group, double seconds);
/* Monotonic clocks never go backwards within and across `threads` threads. */
void verify_monotonic(struct check_list *out, const char *group, double seconds, unsigned threads);
/* getrandom: full lengths, distinct outputs, through each path. */
void verify_getrandom(struct check_list *out, const char *group);
/* The checks above inside a new time namespace with offsets. */
void verify_time_namespace(struct check_list *out, double seconds);

#endif /* VDSOKIT_CLI_CHECKS_H */
