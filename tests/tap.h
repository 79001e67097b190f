/* SPDX-License-Identifier: MIT */
/* A minimal TAP producer for the C tests: plan at the end, diagnostics on '#'. */
#ifndef VDSOKIT_TAP_H
#define VDSOKIT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count, tap_failed;

__attribute__((format(printf, 2, 3), unused)) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_count);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 1, 2), unused)) static void skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("ok %d # SKIP ", ++tap_count);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

__attribute__((format(printf, 1, 2), unused)) static void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

__attribute__((unused)) static int done_testing(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
