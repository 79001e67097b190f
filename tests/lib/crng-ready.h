/* SPDX-License-Identifier: MIT */
/*
 * Until the kernel's random generator is initialised, its vDSO getrandom
 * takes the syscall on every call (by design): a freshly booted guest can
 * be in that state when the tests start.  Tests that count getrandom's
 * syscalls first wait for it, with one blocking getrandom syscall.
 */
#ifndef VDSOKIT_TEST_CRNG_READY_H
#define VDSOKIT_TEST_CRNG_READY_H

#include "vdsokit.h"

static void wait_for_crng_ready(void)
{
	unsigned char byte;
	while (vdsokit_getrandom_via(VDSOKIT_ROUTE_SYSCALL, &byte, 1, 0) == -EINTR)
		;
}

#endif
