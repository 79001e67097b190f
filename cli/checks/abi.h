/* SPDX-License-Identifier: MIT */
/*
 * vdsokit abi: the bad-input cases (abi_cases.c) and the runner that calls
 * each in a child process (commands/abi.c).
 */
#ifndef VDSOKIT_CLI_ABI_H
#define VDSOKIT_CLI_ABI_H

#include <stddef.h>
#include <sys/types.h>

#include "checks.h"
#include "vdsokit.h"

/* What a pointer argument points at. */
enum abi_pointer {
	ABI_PTR_VALID,       /* a writable, aligned buffer                        */
	ABI_PTR_NULL,
	ABI_PTR_UNMAPPED,    /* a page that was mapped and then unmapped          */
	ABI_PTR_READONLY,    /* a PROT_READ page                                  */
	ABI_PTR_PARTIAL,     /* the object straddles into a PROT_NONE guard page  */
	ABI_PTR_MISALIGNED,  /* writable, one byte off the type's alignment       */
	ABI_PTR_KERNEL,      /* the top page of the address space: kernel side    */
	ABI_PTR_KIND_COUNT
};

/* "NULL", "unmapped", "read-only", … */
const char *abi_pointer_name(enum abi_pointer kind);

/* The memory the pointers point at, prepared before the children fork. */
struct abi_memory {
	unsigned char *writable;   /* 4096 bytes, page aligned                    */
	unsigned char *readonly;   /* one PROT_READ page                          */
	unsigned char *boundary;   /* end of a writable page followed by PROT_NONE */
	unsigned char *unmapped;   /* a page no longer mapped                     */
};

/* 0, or -errno (with *what naming the step) when the memory could not be set up. */
int abi_memory_init(struct abi_memory *m, const char **what);

/* Whether the unmapped page is still unmapped (nothing mapped over it since). */
bool abi_memory_still_unmapped(const struct abi_memory *m);

/* The processes the CPU-time clock cases name. */
struct abi_processes {
	pid_t self;
	pid_t other;      /* a child that sleeps until killed, 0 if none */
	pid_t gone;       /* a pid that belongs to no process, 0 if none */
};

/* Whose CPU-time clock a case names when it is the caller's own. */
enum abi_clock_owner {
	ABI_CLOCK_FIXED,            /* `clock` as it stands                      */
	ABI_CLOCK_OWN_PROCESS,      /* the calling child's pid, SCHED            */
	ABI_CLOCK_OWN_THREAD,       /* the calling child's tid, SCHED            */
};

struct abi_case {
	enum vdsokit_func fn;
	long clock;                 /* clock_gettime / clock_getres            */
	enum abi_clock_owner owner; /* computed in the child: its own pid/tid  */
	enum abi_pointer pointer;   /* what the bad (or only) pointer is       */
	unsigned bad_argument;      /* 0: the first pointer argument, 1: second */
	size_t length;              /* getrandom                               */
	unsigned flags;             /* getrandom                               */
	char category[24];          /* "clock id", "pointer", "CPU-time clock", … */
	char argument[96];          /* what is wrong: "ts: NULL", "clock -1", … */
	char call[128];             /* "clock_gettime(MONOTONIC, NULL)"        */
};

/* Fills at most max cases; returns how many. */
unsigned abi_cases_build(struct abi_case *cases, unsigned max, const struct abi_processes *procs);

/*
 * Makes the call of case c through one path (VDSOKIT_ROUTE_AUTO: the library's
 * own choice).  Returns what it returned: 0 / a value / a negative errno.
 * Run it in a child: it may well crash.
 */
long abi_case_call(const struct abi_case *c, enum vdsokit_route route, const struct abi_memory *m);

#endif /* VDSOKIT_CLI_ABI_H */
