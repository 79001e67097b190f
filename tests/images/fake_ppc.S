/* SPDX-License-Identifier: MIT */
/*
 * The "callable" fake functions for powerpc (ppc32, ppc64, ppc64le), with
 * the values documented in fake.c.  In assembly because the powerpc vDSO
 * reports errors its own way: CR0.SO set and a positive errno in r3; success
 * clears SO.  No TOC, no GOT, no calls: the image is mapped flat and never
 * relocated.  Labels are plain code addresses, as in the kernel's vDSO
 * (which has no function descriptors even on ELFv1).
 */
#include "names.h"

#define EINVAL_NR 22
#define ENOSYS_NR 38

#ifdef __powerpc64__
# define STORE_LONG std
# define STOREX_LONG stdx
# define LONG_SIZE 8
# define CMP_POINTER cmpldi
#else
# define STORE_LONG stw
# define STOREX_LONG stwx
# define LONG_SIZE 4
# define CMP_POINTER cmplwi
#endif

	/*
	 * Every entry first writes over the 512 bytes below the stack pointer
	 * it is called with, as the kernel's entries (5.11 on) open their
	 * frames there: a caller that kept anything in its red zone (288
	 * bytes, ppc64) across the call finds it overwritten.  Only r11, r12
	 * and CR0, which the ABI lets a callee clobber.
	 */
	.macro CLOBBER_BELOW_SP
	li 11, -LONG_SIZE
	lis 12, 0x5a5a
	ori 12, 12, 0x5a5a
7:	STOREX_LONG 12, 1, 11
	addi 11, 11, -LONG_SIZE
	cmpwi 11, -512
	bge 7b
	.endm

	.macro FUNC name
	.text
	.balign 4
	.type \name, @function
\name:
	CLOBBER_BELOW_SP
	.endm

	.macro ENDFUNC name
.L\name\()_end:
	.size \name, . - \name
	.endm

	/* r3 = positive errno, SO set. */
	.macro FAIL errno
	li 3, \errno
	crset so
	blr
	.endm

	.macro SUCCEED
	li 3, 0
	crclr so
	blr
	.endm

	/* Branches to 8f (EINVAL) for a clock outside 0..11 (unsigned test
	   catches negatives).  No -ENOSYS: only mips kernels answer that. */
	.macro CHECK_CLOCK
	cmplwi 3, 11
	bgt 8f
	.endm

/* int clock_gettime(clockid_t r3, native timespec *r4) */
FUNC fake_clock_gettime_native
	CHECK_CLOCK
	addis 5, 3, 1		/* 0x10000 + clock */
	addi 6, 3, 1000
#ifdef FAKE_TIME32
	cmpwi 3, 11		/* TAI: an overflowed 32-bit tv_sec */
	bne 1f
	li 5, -5
1:
#endif
	STORE_LONG 5, 0(4)
	STORE_LONG 6, LONG_SIZE(4)
	SUCCEED
8:	FAIL EINVAL_NR
9:	FAIL ENOSYS_NR
ENDFUNC fake_clock_gettime_native

#ifndef __powerpc64__
/* int clock_gettime64(clockid_t r3, struct __kernel_timespec *r4): big-endian
   64-bit fields, the high words are 0. */
FUNC fake_clock_gettime64
	CHECK_CLOCK
	addis 5, 3, 0x64	/* 0x640000 + clock */
	addi 6, 3, 2000
	li 7, 0
	stw 7, 0(4)
	stw 5, 4(4)
	stw 7, 8(4)
	stw 6, 12(4)
	SUCCEED
8:	FAIL EINVAL_NR
9:	FAIL ENOSYS_NR
ENDFUNC fake_clock_gettime64

/* int clock_getres_time64(clockid_t r3, struct __kernel_timespec *r4) */
FUNC fake_clock_getres64
	cmplwi 3, 11
	bgt 8f
	cmpwi 4, 0
	beq 1f
	li 5, 0
	li 6, 7
	stw 5, 0(4)
	stw 5, 4(4)
	stw 5, 8(4)
	stw 6, 12(4)
1:	SUCCEED
8:	FAIL EINVAL_NR
ENDFUNC fake_clock_getres64
#endif

/* int clock_getres(clockid_t r3, native timespec *r4) */
FUNC fake_clock_getres_native
	cmplwi 3, 11
	bgt 8f
	cmpwi 4, 0
	beq 1f
	li 5, 0
#ifdef FAKE_TIME32
	li 6, 3
#else
	li 6, 7
#endif
	STORE_LONG 5, 0(4)
	STORE_LONG 6, LONG_SIZE(4)
1:	SUCCEED
8:	FAIL EINVAL_NR
ENDFUNC fake_clock_getres_native

/* int gettimeofday(native timeval *r3, struct timezone *r4) */
FUNC fake_gettimeofday
	CMP_POINTER 3, 0
	beq 1f
	lis 5, 3
	ori 5, 5, 0x3333	/* 0x33333 */
	li 6, 0x444
	STORE_LONG 5, 0(3)
	STORE_LONG 6, LONG_SIZE(3)
1:	CMP_POINTER 4, 0
	beq 2f
	li 5, 5
	li 6, 0
	stw 5, 0(4)
	stw 6, 4(4)
2:	SUCCEED
ENDFUNC fake_gettimeofday

/* time_t time(time_t *r3) */
FUNC fake_time
	lis 5, 5
	ori 5, 5, 0x5555	/* 0x55555 */
	CMP_POINTER 3, 0
	beq 1f
	STORE_LONG 5, 0(3)
1:	mr 3, 5
	crclr so
	blr
ENDFUNC fake_time

/* int getcpu(unsigned *r3, unsigned *r4, void *cache) */
FUNC fake_getcpu
	CMP_POINTER 3, 0
	beq 1f
	li 5, 3
	stw 5, 0(3)
1:	CMP_POINTER 4, 0
	beq 2f
	li 5, 4
	stw 5, 0(4)
2:	SUCCEED
ENDFUNC fake_getcpu

#ifdef __powerpc64__
/* ssize_t getrandom(void *r3, size_t r4, unsigned r5, void *state r6,
   size_t state_len r7) */
FUNC fake_getrandom
	cmpdi 3, 0
	bne 2f
	cmpdi 4, 0
	bne 2f
	cmpdi 7, -1
	bne 2f
	li 5, 256		/* size_of_opaque_state */
	stw 5, 0(6)
	li 5, 3			/* PROT_READ | PROT_WRITE */
	stw 5, 4(6)
	li 5, 0x22		/* MAP_PRIVATE | MAP_ANONYMOUS */
	stw 5, 8(6)
	li 5, 0
	li 8, 13		/* reserved[13] */
	addi 9, 6, 12
	mtctr 8
1:	stw 5, 0(9)
	addi 9, 9, 4
	bdnz 1b
	SUCCEED
2:	mr 9, 3			/* fill len bytes with 0xA5, return len */
	li 5, 0xA5
	cmpdi 4, 0
	beq 4f
	mtctr 4
3:	stb 5, 0(9)
	addi 9, 9, 1
	bdnz 3b
4:	mr 3, 4
	crclr so
	blr
ENDFUNC fake_getrandom
#endif

/* Entries the library must never call. */
FUNC fake_not_called
	FAIL ENOSYS_NR
ENDFUNC fake_not_called

#define EXPORT(impl, name) EXPORT_AS name, fake_##impl
#define EXPORT_WEAK(impl, name) EXPORT_WEAK_AS name, fake_##impl
#define EXPORT_OLD(impl, name) EXPORT(impl, name)
#define EXPORT_DATA(name)

	.macro EXPORT_AS name, impl
	.globl \name
	.type \name, @function
	.set \name, \impl
	.size \name, .L\impl\()_end - \impl
	.endm

	.macro EXPORT_WEAK_AS name, impl
	.weak \name
	.type \name, @function
	.set \name, \impl
	.endm

#include "exports.h"
