/* SPDX-License-Identifier: MIT */
/*
 * Numbers and names as people read them: durations with their unit, ratios
 * with a ×, clock ids by name.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

const char *fmt_duration_ns(char *buf, size_t size, double ns)
{
	if (!isfinite(ns) || ns < 0)
		snprintf(buf, size, "-");
	else if (ns < 10)
		snprintf(buf, size, "%.2f ns", ns);
	else if (ns < 100)
		snprintf(buf, size, "%.1f ns", ns);
	else if (ns < 1e4)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.3g µs", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3g s", ns / 1e9);
	return buf;
}

const char *fmt_ratio(char *buf, size_t size, double ratio)
{
	if (!isfinite(ratio) || ratio <= 0)
		snprintf(buf, size, "-");
	else if (ratio < 10)
		snprintf(buf, size, "%.2f×", ratio);
	else if (ratio < 100)
		snprintf(buf, size, "%.1f×", ratio);
	else
		snprintf(buf, size, "%.0f×", ratio);
	return buf;
}

/* Clock ids are kernel ABI (include/uapi/linux/time.h), the same on every arch. */
static const char *const clock_names[] = {
	"REALTIME", "MONOTONIC", "PROCESS_CPUTIME_ID", "THREAD_CPUTIME_ID",
	"MONOTONIC_RAW", "REALTIME_COARSE", "MONOTONIC_COARSE", "BOOTTIME",
	"REALTIME_ALARM", "BOOTTIME_ALARM", "SGI_CYCLE", "TAI",
};

#define CLOCK_NAME_COUNT (long)(sizeof(clock_names) / sizeof(clock_names[0]))

const char *clock_id_name(char *buf, size_t size, long clock)
{
	if (clock >= 0 && clock < CLOCK_NAME_COUNT)
		snprintf(buf, size, "%s", clock_names[clock]);
	else
		snprintf(buf, size, "INVALID(%ld)", clock);
	return buf;
}

bool clock_id_parse(const char *text, long *clock)
{
	const char *name = text;
	if (strncasecmp(name, "CLOCK_", 6) == 0)
		name += 6;
	for (long i = 0; i < CLOCK_NAME_COUNT; i++) {
		if (strcasecmp(name, clock_names[i]) == 0) {
			*clock = i;
			return true;
		}
	}
	if (strncasecmp(name, "INVALID(", 8) == 0)
		name += 8;
	char *end;
	errno = 0;
	long v = strtol(name, &end, 0);
	if (errno || end == name || v < INT32_MIN || v > INT32_MAX)
		return false;
	if (*end == ')' && name != text)
		end++;
	if (*end)
		return false;
	*clock = v;
	return true;
}
