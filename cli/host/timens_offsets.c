/* SPDX-License-Identifier: MIT */
/*
 * The offsets of this process's time namespace, from
 * /proc/self/timens_offsets: what doctor explains and what verify must
 * take out of its expectations, because a new namespace's offsets are
 * relative to the initial namespace, not to the one it was made from.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "host/host.h"

bool timens_offsets_read(struct timens_offsets *o)
{
	memset(o, 0, sizeof(*o));
	FILE *f = fopen("/proc/self/timens_offsets", "re");
	if (!f)
		return false;
	char name[32];
	long long sec, nsec;
	while (fscanf(f, "%31s %lld %lld", name, &sec, &nsec) == 3) {
		int64_t ns = (int64_t)sec * 1000000000 + nsec;
		/* Names on current kernels, clock ids on the first ones. */
		if (strcmp(name, "monotonic") == 0 || strcmp(name, "1") == 0)
			o->monotonic_ns = ns;
		else if (strcmp(name, "boottime") == 0 || strcmp(name, "7") == 0)
			o->boottime_ns = ns;
	}
	fclose(f);
	return true;
}
