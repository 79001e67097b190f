/* SPDX-License-Identifier: MIT */
/*
 * Check records and the small facts verify, abi and doctor share: signal
 * names, the CPU-clock id encoding, the allowed CPUs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "checks/reference.h"

const char *check_status_name(enum check_status status)
{
	switch (status) {
	case CHECK_PASS: return "pass";
	case CHECK_FAIL: return "fail";
	case CHECK_SKIP: return "skip";
	case CHECK_VDSO_DIFFERS: return "vdso-differs";
	}
	return "?";
}

struct check_result *check_add(struct check_list *list, const char *group,
			       const char *name_fmt, ...)
{
	static struct check_result scratch;
	struct check_result *r;
	if (list->count < list->capacity) {
		r = &list->items[list->count++];
	} else {
		list->dropped++;
		r = &scratch;
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->group, sizeof(r->group), "%s", group);
	va_list ap;
	va_start(ap, name_fmt);
	vsnprintf(r->name, sizeof(r->name), name_fmt, ap);
	va_end(ap);
	r->status = CHECK_PASS;
	return r;
}

void check_set(struct check_result *r, enum check_status status, const char *detail_fmt, ...)
{
	va_list ap;
	r->status = status;
	va_start(ap, detail_fmt);
	vsnprintf(r->detail, sizeof(r->detail), detail_fmt, ap);
	va_end(ap);
}

void check_number(struct check_result *r, const char *key, const char *unit, long long value)
{
	if (r->number_count >= CHECK_MAX_NUMBERS)
		return;
	r->numbers[r->number_count].key = key;
	r->numbers[r->number_count].unit = unit;
	r->numbers[r->number_count].value = value;
	r->number_count++;
}

struct check_counts check_count(const struct check_list *list)
{
	struct check_counts n = { 0, 0, 0, 0 };
	for (unsigned i = 0; i < list->count; i++) {
		switch (list->items[i].status) {
		case CHECK_PASS: n.pass++; break;
		case CHECK_FAIL: n.fail++; break;
		case CHECK_SKIP: n.skip++; break;
		case CHECK_VDSO_DIFFERS: n.vdso_differs++; break;
		}
	}
	return n;
}

const long invalid_clock_ids[] = { -1, 12, 13, 14, 15, INT_MIN, INT_MAX };
const unsigned invalid_clock_id_count = sizeof(invalid_clock_ids) / sizeof(invalid_clock_ids[0]);

void check_skip_refused(struct check_result *r, const char *syscall, int result)
{
	char why[240];
	check_set(r, CHECK_SKIP, "%s: nothing to compare with",
		  reference_why(syscall, result, why, sizeof(why)));
}

void check_skip_reference(struct check_result *r, const char *syscall, const char *what, long error)
{
	char why[240];
	if (syscall_refused(error))
		reference_why(syscall, error, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "the %s syscall, the reference, failed during the run: %s",
			 syscall, errno_name((int)-error));
	check_set(r, CHECK_SKIP, "%s%s%s: nothing to compare with", why, what ? ", for " : "",
		  what ? what : "");
}

int reference_clock_error(void)
{
	struct vdsokit_timespec ts;
	return reference_clock_gettime(CLOCK_REALTIME, &ts);
}
