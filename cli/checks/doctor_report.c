/* SPDX-License-Identifier: MIT */
/*
 * doctor's findings: how a check adds one and what backs it, for every
 * doctor_*.c check and for the renderers in commands/doctor.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks/doctor.h"
#include "output/output.h"

static const char *const severity_names[DOCTOR_SEVERITY_COUNT] = {
	"ok", "info", "warning", "slow",
};

const char *doctor_severity_name(enum doctor_severity severity)
{
	return severity < DOCTOR_SEVERITY_COUNT ? severity_names[severity] : "?";
}

struct doctor_finding *doctor_finding_add(struct doctor_report *r, const char *id,
					  enum doctor_severity severity, const char *fmt, ...)
{
	/* Past the limit a scratch finding, so that no check has to test the result. */
	static struct doctor_finding overflow;
	struct doctor_finding *f = r->count < DOCTOR_MAX_FINDINGS ? &r->findings[r->count++] :
				   &overflow;
	memset(f, 0, sizeof(*f));
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->severity = severity;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->title, sizeof(f->title), fmt, ap);
	va_end(ap);
	return f;
}

void doctor_evidence(struct doctor_finding *f, const char *fmt, ...)
{
	if (f->evidence_count >= DOCTOR_MAX_EVIDENCE)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->evidence[f->evidence_count++], sizeof(f->evidence[0]), fmt, ap);
	va_end(ap);
}

void doctor_action(struct doctor_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->action, sizeof(f->action), fmt, ap);
	va_end(ap);
}

void doctor_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, size - used, fmt, ap);
	va_end(ap);
}

const char *doctor_call_label(enum vdsokit_func fn, long clock, char *buf, size_t size)
{
	char name[32];
	if (fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES)
		snprintf(buf, size, "%s(%s)", cli_func_name(fn), clock_id_name(name, sizeof(name), clock));
	else
		snprintf(buf, size, "%s", cli_func_name(fn));
	return buf;
}

unsigned doctor_slow_count(const struct doctor_report *r)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->count; i++)
		n += r->findings[i].severity == SEVERITY_SLOW;
	return n;
}
