/* SPDX-License-Identifier: MIT */
/*
 * How deep the vDSO's own entries reach below the stack pointer, per
 * function and clock (info, doctor): the bare entry the library resolved
 * (vdsokit_bare_entry) called on a painted stack (stack_probe.c).  Where
 * no entry can be called bare (getrandom: its state is the library's;
 * powerpc: CR0.SO and descriptors) the call goes through
 * vdsokit_*_via(VDSOKIT_ROUTE_VDSO), and the figure includes that frame.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "measure/measure.h"
#include "bare_entry.h"
#include "stack_probe.h"
#include "images/images.h"


struct probe_call {
	enum vdsokit_func fn;
	clockid_t clock;
	const void *entry;   /* NULL: through vdsokit_*_via(VDSOKIT_ROUTE_VDSO) */
	int time64;
};

/* getrandom's state is allocated by a first call, outside the measurement. */
static void prepare(void *arg)
{
	const struct probe_call *c = arg;
	unsigned char buf[32];
	if (c->fn == VDSOKIT_FN_GETRANDOM)
		vdsokit_getrandom_via(VDSOKIT_ROUTE_VDSO, buf, sizeof(buf), 0);
}

static long call_bare(void *arg)
{
	const struct probe_call *c = arg;
	struct kernel_time_buffer buf;
	unsigned cpu, node;
	switch (c->fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
	case VDSOKIT_FN_CLOCK_GETRES:
		STACK_PROBE_MARK();
		return ((bare_clock_fn *)c->entry)(c->clock, &buf);
	case VDSOKIT_FN_GETTIMEOFDAY:
		STACK_PROBE_MARK();
		return ((bare_gettimeofday_fn *)c->entry)(&buf, NULL);
	case VDSOKIT_FN_TIME:
		/* time() cannot fail: its value is no error code. */
		if (c->time64) {
			STACK_PROBE_MARK();
			((bare_time64_fn *)c->entry)(NULL);
		} else {
			STACK_PROBE_MARK();
			((bare_time32_fn *)c->entry)(NULL);
		}
		return 0;
	case VDSOKIT_FN_GETCPU:
		STACK_PROBE_MARK();
		return ((bare_getcpu_fn *)c->entry)(&cpu, &node, NULL);
	default:
		return -EINVAL;
	}
}

static long call_via(void *arg)
{
	const struct probe_call *c = arg;
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	unsigned char buf[32];
	unsigned cpu, node;
	int64_t t;
	long r;
	switch (c->fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		STACK_PROBE_MARK();
		return vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, c->clock, &ts);
	case VDSOKIT_FN_CLOCK_GETRES:
		STACK_PROBE_MARK();
		return vdsokit_clock_getres_via(VDSOKIT_ROUTE_VDSO, c->clock, &ts);
	case VDSOKIT_FN_GETTIMEOFDAY:
		STACK_PROBE_MARK();
		return vdsokit_gettimeofday_via(VDSOKIT_ROUTE_VDSO, &tv, NULL);
	case VDSOKIT_FN_TIME:
		STACK_PROBE_MARK();
		return vdsokit_time_via(VDSOKIT_ROUTE_VDSO, &t);
	case VDSOKIT_FN_GETCPU:
		STACK_PROBE_MARK();
		return vdsokit_getcpu_via(VDSOKIT_ROUTE_VDSO, &cpu, &node);
	case VDSOKIT_FN_GETRANDOM:
		STACK_PROBE_MARK();
		r = vdsokit_getrandom_via(VDSOKIT_ROUTE_VDSO, buf, sizeof(buf), 0);
		return r == (long)sizeof(buf) ? 0 : r < 0 ? r : -EIO;
	case VDSOKIT_FN_THREAD_POINTER:
		STACK_PROBE_MARK();
		return vdsokit_thread_pointer_via(VDSOKIT_ROUTE_VDSO) ? 0 : -ENOSYS;
	default:
		return -EINVAL;
	}
}

static bool clocked(enum vdsokit_func fn)
{
	return fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
}

void vdso_stack_measure(enum vdsokit_func fn, struct vdso_stack_use *u)
{
	memset(u, 0, sizeof(*u));
	struct probe_call call = { .fn = fn };
	int r = vdsokit_bare_entry(fn, &call.entry, &call.time64);
	if (r == -EOPNOTSUPP) {
		call.entry = NULL;
		u->through_library = true;
	} else if (r != 0) {
		snprintf(u->why, sizeof(u->why), "no vDSO entry to call (vdsokit_bare_entry: %s)",
			 errno_name(-r));
		return;
	}
	unsigned clocks = clocked(fn) ? VDSO_STACK_MAX_CLOCKS : 1;
	for (unsigned c = 0; c < clocks; c++) {
		struct vdsokit_route_info p;
		if (vdsokit_route_of(fn, (clockid_t)c, &p) != 0)
			continue;
		/*
		 * Only what the library sends to the vDSO: a clock it serves by
		 * syscall is left out; a function is in when the library resolved
		 * an entry for it (getcpu's node comes from __vdso_getcpu even
		 * where the cpu comes from the rseq area).
		 */
		bool sent = p.route == VDSOKIT_ROUTE_VDSO || p.route == VDSOKIT_ROUTE_VDSO_KERNEL ||
			    (!clocked(fn) && p.symbol);
		if (!sent) {
			if (!clocked(fn))
				snprintf(u->why, sizeof(u->why), "the library calls no vDSO entry for "
					 "it (route %s: %s)", vdsokit_route_name(p.route),
					 cli_reason_text(p.reason));
			continue;
		}
		call.clock = (clockid_t)c;
		struct vdso_stack_clock *out = &u->clocks[u->clock_count];
		out->clock = clocked(fn) ? (long)c : -1;
		struct stack_probe_result *res = &out->result;
		if (!stack_probe(prepare, call.entry ? call_bare : call_via, &call, res)) {
			snprintf(u->why, sizeof(u->why), "%s", res->why);
			continue;
		}
		/* A figure only from a call that succeeded. */
		if (res->call_result < 0) {
			snprintf(u->why, sizeof(u->why), "the call failed (%s): no figure",
				 errno_name((int)-res->call_result));
			continue;
		}
		u->clock_count++;
		if (!u->measured || res->deepest > u->deepest) {
			u->deepest = res->deepest;
			u->page_granular = res->page_granular;
			u->written = res->written;
			u->deepest_clock = out->clock;
		}
		u->measured = true;
	}
	if (!u->measured && !u->why[0])
		snprintf(u->why, sizeof(u->why), "the library sends none of its clocks to the vDSO");
}

const char *vdso_stack_text(char *buf, size_t size, const struct vdso_stack_use *u)
{
	if (!u->measured)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%s%zu B", u->page_granular ? "<= " : "", u->deepest);
	return buf;
}

void vdso_stack_json(struct json_writer *w, const struct vdso_stack_use *u)
{
	json_key(w, "stack");
	if (!u->measured) {
		json_null(w);
		json_kv_string(w, "stack_unmeasured_reason", u->why);
		return;
	}
	json_object_begin(w);
	json_kv_uint(w, "deepest_bytes", u->deepest);
	json_kv_bool(w, "page_granular", u->page_granular);
	json_kv_string(w, "through", u->through_library ? "vdsokit_*_via(VDSOKIT_ROUTE_VDSO)" :
			 "bare entry");
	json_key(w, "clocks");
	if (u->deepest_clock < 0 && u->clock_count <= 1) {
		json_null(w);
	} else {
		json_array_begin(w);
		for (unsigned i = 0; i < u->clock_count; i++) {
			char name[32];
			json_object_begin(w);
			json_kv_string(w, "clock", clock_id_name(name, sizeof(name), u->clocks[i].clock));
			json_kv_uint(w, "deepest_bytes", u->clocks[i].result.deepest);
			json_kv_bool(w, "page_granular", u->clocks[i].result.page_granular);
			json_object_end(w);
		}
		json_array_end(w);
	}
	json_object_end(w);
	json_kv_string(w, "stack_unmeasured_reason", NULL);
}
