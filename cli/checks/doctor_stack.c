/* SPDX-License-Identifier: MIT */
/*
 * doctor: how far below the stack pointer the vDSO's entries reach,
 * measured on a painted stack.  More than VDSO_STACK_WARN_BYTES breaks
 * callers on small stacks: Go called the vDSO on goroutine stacks with
 * 104 bytes to spare.
 */
#include "checks/doctor.h"
#include "output/output.h"
#include "measure/measure.h"

#define VDSO_STACK_WARN_BYTES 1024

/* Every function's stack use, and the deepest of them. */
struct stack_survey {
	struct vdso_stack_use use[VDSOKIT_FN_COUNT];
	unsigned measured, over;      /* functions measured, and those past the bound */
	int deepest_fn;               /* -1: none measured */
};

static void survey_stack(struct stack_survey *s)
{
	s->measured = s->over = 0;
	s->deepest_fn = -1;
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		const struct vdso_stack_use *u = &s->use[fn];
		vdso_stack_measure((enum vdsokit_func)fn, &s->use[fn]);
		if (!u->measured)
			continue;
		s->measured++;
		s->over += u->deepest > VDSO_STACK_WARN_BYTES;
		if (s->deepest_fn < 0 || u->deepest > s->use[s->deepest_fn].deepest)
			s->deepest_fn = (int)fn;
	}
}

/* One line a function: all of them when none is too deep, else just the deep ones. */
static void stack_evidence(struct doctor_finding *f, const struct stack_survey *s)
{
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		char clock[32];
		const struct vdso_stack_use *u = &s->use[fn];
		if (!u->measured || (s->over && u->deepest <= VDSO_STACK_WARN_BYTES))
			continue;
		doctor_evidence(f, "%s: %s%zu bytes%s%s%s (%zu written; painted stack, %s)",
			cli_func_name((enum vdsokit_func)fn), u->page_granular ? "at most " : "",
			u->deepest, u->deepest_clock >= 0 ? " with CLOCK_" : "",
			u->deepest_clock >= 0 ? clock_id_name(clock, sizeof(clock), u->deepest_clock) :
			"", u->through_library ? " through vdsokit_*_via(VDSO)" : "",
			u->written, u->page_granular ?
			"the deepest touch wrote nothing: a stack probe's mark" : "exact");
	}
}

void doctor_check_vdso_stack(struct doctor_report *r)
{
	static struct stack_survey s;
	if (!r->vdso.mapped || !r->vdso.usable)
		return;
	survey_stack(&s);
	if (s.measured == 0)
		return;
	const struct vdso_stack_use *deepest = &s.use[s.deepest_fn];
	const char *deepest_name = cli_func_name((enum vdsokit_func)s.deepest_fn);
	struct doctor_finding *f;
	if (s.over == 0) {
		f = doctor_finding_add(r, "vdso-stack", SEVERITY_OK,
			"the vDSO's entries touch at most %zu bytes below the stack pointer (%s)",
			deepest->deepest, deepest_name);
	} else {
		f = doctor_finding_add(r, "vdso-stack-deep", SEVERITY_WARNING,
			"the vDSO touches more than %d bytes below the stack pointer: %u "
			"function%s, up to %s%zu bytes (%s)", VDSO_STACK_WARN_BYTES, s.over,
			s.over == 1 ? "" : "s", deepest->page_granular ? "about " : "",
			deepest->deepest, deepest_name);
		doctor_action(f, "callers on small stacks (goroutines, green threads, coroutines, "
			      "signal handlers on a sigaltstack) can overrun them: Go's runtime "
			      "corrupted memory on such kernels (golang/go#20427). The likely cause is "
			      "stack probes: a kernel built with -fstack-check or "
			      "-fstack-clash-protection; build it with -fstack-check=no as CoreOS did "
			      "(coreos/coreos-overlay#1359), or call the vDSO on a large stack");
	}
	stack_evidence(f, &s);
}
