/* SPDX-License-Identifier: MIT */
/*
 * verify: clock_gettime, clock_getres, gettimeofday and time against the
 * raw syscall.
 *
 * The sandwich: a syscall reading taken before and one taken after bound
 * every vDSO reading in between, for any clock that only moves forward.
 * A vDSO that mis-scales the counter, uses a stale base or the wrong clock
 * lands outside the bounds sooner or later, so the sandwich is repeated
 * for the whole time budget.  Both the raw vDSO symbol and the library's
 * own call (vDSO or its fallback) are checked.
 */
#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "measure/measure.h"
#include "checks/reference.h"

#define NSEC_PER_SEC 1000000000LL

static const char *clock_label(long clock)
{
	static char buf[32];
	return clock_id_name(buf, sizeof(buf), clock);
}

static bool nsec_in_range(const struct vdsokit_timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < NSEC_PER_SEC;
}

/* The auxiliary clocks, CLOCK_AUX .. CLOCK_AUX_LAST (Linux 6.17). */
#define AUX_CLOCK_FIRST 16
#define AUX_CLOCK_LAST 23

/*
 * Where the raw vDSO disagrees with the syscall: a failure when the
 * library uses the vDSO for this id, a kernel finding (CHECK_VDSO_DIFFERS)
 * when it sends the id to the syscall.
 */
static enum check_status vdso_difference(bool library_uses_vdso)
{
	return library_uses_vdso ? CHECK_FAIL : CHECK_VDSO_DIFFERS;
}

/*
 * The vDSO entry of fn answered a refusal (EPERM, ENOSYS: raw) that the
 * reference syscall did not (sys): the entry's own fallback syscall, which
 * is not the reference (i386's 32-bit-time clock_getres beside
 * clock_getres_time64), was refused by a sandbox.  That is the sandbox's
 * answer, not the vDSO's nor the library's when it went there (lib == raw):
 * a skip naming that syscall.  A library answer of its own (lib neither the
 * reference's nor the entry's) is still a verdict: false.
 */
static bool skip_fallback_refused(struct check_result *r, enum vdsokit_func fn, int sys, int raw,
				  int lib)
{
	struct vdsokit_route_info info;
	/* Where the vDSO declines with -ENOSYS (mips), that is its own answer. */
	if (raw == sys || !syscall_refused(raw) || (raw == -ENOSYS && VDSOKIT__VDSO_MAY_DECLINE) ||
	    (lib != sys && lib != raw) ||
	    vdsokit_route_of(fn, CLOCK_MONOTONIC, &info) != 0 || !info.symbol)
		return false;
	const char *name = strstr(info.symbol, "clock_") ? strstr(info.symbol, "clock_") : info.symbol;
	check_set(r, CHECK_SKIP, "the vDSO's %s falls back to the %s syscall for this id, and that "
		  "fails here: %s (a seccomp filter, or a kernel without it), while the reference "
		  "answers %s: no answer of the vDSO's own to compare%s", info.symbol, name, errno_name(-raw),
		  sys ? errno_name(-sys) : "0", lib == sys ? " (the library agrees with the reference)" : "");
	return true;
}

/*
 * An id the syscall rejects: the vDSO and the library must reject it with
 * the same error (the vDSO hands such ids to the kernel).
 */
static void check_rejected_gettime(struct check_list *out, const char *group, long clock,
				   bool library_uses_vdso)
{
	struct vdsokit_timespec ts;
	int sys = reference_clock_gettime((clockid_t)clock, &ts);
	struct check_result *r = check_add(out, group, "clock_gettime(%s)", clock_label(clock));
	check_number(r, "syscall", "", sys);
	/* Refused (killed, even): the vDSO and the library would hand the id to it. */
	if (syscall_refused(sys)) {
		check_skip_refused(r, "clock_gettime", sys);
		return;
	}
	int raw = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, (clockid_t)clock, &ts);
	int lib = vdsokit_clock_gettime((clockid_t)clock, &ts);
	check_number(r, "vdso", "", raw);
	check_number(r, "library", "", lib);
	if (sys == 0) {
		/* Not an error at all on this kernel: nothing to compare. */
		check_set(r, CHECK_SKIP, "the syscall accepts this id here");
		return;
	}
	if (skip_fallback_refused(r, VDSOKIT_FN_CLOCK_GETTIME, sys, raw, lib))
		return;
	char s[16], v[16];
	snprintf(s, sizeof(s), "%s", errno_name(-sys));
	snprintf(v, sizeof(v), "%s", raw == -ENOSYS ? "absent" : errno_name(-raw));
	if (lib != sys)
		check_set(r, CHECK_FAIL, "syscall %s, library %s", s, lib ? errno_name(-lib) : "0");
	else if (raw != sys && raw != -ENOSYS)
		check_set(r, vdso_difference(library_uses_vdso), "syscall %s, vDSO %s%s", s,
			  raw ? v : "0", library_uses_vdso ? "" :
			  "; the library sends this id to the syscall and agrees with it");
	else if (raw == -ENOSYS)
		check_set(r, CHECK_PASS, "rejected with %s by the syscall and the library (no vDSO symbol)", s);
	else
		check_set(r, CHECK_PASS, "rejected with %s by the syscall, the vDSO and the library", s);
}

struct sandwich_stats {
	long long rounds, violations, bad_nsec;
	int64_t widest_ns;          /* largest after - before        */
	/* first violation, for the report */
	int64_t before_ns, vdso_ns, library_ns, after_ns;
	bool have_raw;
	long reference_error;       /* a syscall reading failed: the -errno */
};

static void sandwich_clock(long clock, double seconds, struct sandwich_stats *st)
{
	clockid_t id = (clockid_t)clock;
	struct vdsokit_timespec before, raw, lib, after;
	struct bench_deadline deadline;
	bench_deadline_start(&deadline, seconds);
	memset(st, 0, sizeof(*st));
	st->have_raw = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, id, &raw) != -ENOSYS;
	/* At least a few thousand rounds even on a slow emulated machine. */
	for (long long n = 0;; n++) {
		if ((n & 63) == 0 && (progress_tick(), n >= 2048) && bench_deadline_passed(&deadline))
			break;
		if (!reference_answered(reference_clock_gettime(id, &before),
					&st->reference_error))
			break;
		if (st->have_raw)
			vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, id, &raw);
		vdsokit_clock_gettime(id, &lib);
		if (!reference_answered(reference_clock_gettime(id, &after),
					&st->reference_error))
			break;
		if (!st->have_raw)
			raw = lib;
		int64_t b = timespec_ns(&before), v = timespec_ns(&raw), l = timespec_ns(&lib),
			a = timespec_ns(&after);
		st->rounds++;
		if (a - b > st->widest_ns)
			st->widest_ns = a - b;
		if (!nsec_in_range(&raw) || !nsec_in_range(&lib))
			st->bad_nsec++;
		/* The vDSO call comes first, then the library's: each bounds the next. */
		if (!(b <= v && v <= l && l <= a)) {
			if (st->violations++ == 0) {
				st->before_ns = b;
				st->vdso_ns = v;
				st->library_ns = l;
				st->after_ns = a;
			}
		}
	}
}

static void check_sandwich_gettime(struct check_list *out, const char *group, long clock,
				   double seconds)
{
	struct sandwich_stats st;
	struct check_result *r = check_add(out, group, "clock_gettime(%s)", clock_label(clock));
	sandwich_clock(clock, seconds, &st);
	if (st.reference_error) {
		/* Accepted by the first probe, refused (or failed) later: no figures. */
		check_skip_reference(r, "clock_gettime", NULL, st.reference_error);
		return;
	}
	check_number(r, "rounds", "calls", st.rounds);
	check_number(r, "violations", "", st.violations);
	check_number(r, "widest_sandwich", "ns", st.widest_ns);
	const char *who = st.have_raw ? "vDSO and library" : "library (the vDSO entry: absent, or -ENOSYS)";
	if (st.violations) {
		check_number(r, "syscall_before", "ns", st.before_ns);
		check_number(r, "vdso", "ns", st.vdso_ns);
		check_number(r, "library", "ns", st.library_ns);
		check_number(r, "syscall_after", "ns", st.after_ns);
		check_set(r, CHECK_FAIL,
			  "%lld of %lld rounds outside the syscall sandwich; first: syscall %lld <= "
			  "vDSO %lld <= library %lld <= syscall %lld ns does not hold",
			  st.violations, st.rounds, (long long)st.before_ns, (long long)st.vdso_ns,
			  (long long)st.library_ns, (long long)st.after_ns);
	} else if (st.bad_nsec) {
		check_set(r, CHECK_FAIL, "%lld of %lld readings with tv_nsec outside [0, 1e9)",
			  st.bad_nsec, st.rounds);
	} else {
		check_set(r, CHECK_PASS, "%s inside the syscall sandwich in %lld of %lld rounds "
			  "(widest %lld ns)", who, st.rounds, st.rounds, (long long)st.widest_ns);
	}
}

void verify_clock_gettime(struct check_list *out, const char *group, double seconds)
{
	/* Valid ids share the budget; rejected ones cost a call each. */
	unsigned valid = 0;
	bool accepted[12];
	struct vdsokit_timespec ts;
	for (long clock = 0; clock < 12; clock++) {
		accepted[clock] = reference_clock_gettime((clockid_t)clock, &ts) == 0;
		valid += accepted[clock];
	}
	for (long clock = 0; clock < 12; clock++) {
		if (accepted[clock])
			check_sandwich_gettime(out, group, clock, seconds / (valid ? valid : 1));
		else
			check_rejected_gettime(out, group, clock, true);
	}
	for (unsigned i = 0; i < invalid_clock_id_count; i++)
		check_rejected_gettime(out, group, invalid_clock_ids[i], true);
}

static void check_getres(struct check_list *out, const char *group, long clock,
			 bool library_uses_vdso)
{
	clockid_t id = (clockid_t)clock;
	struct vdsokit_timespec sys_res = { -1, -1 }, raw_res = { -1, -1 }, lib_res = { -1, -1 };
	int sys = reference_clock_getres(id, &sys_res);
	struct check_result *r = check_add(out, group, "clock_getres(%s)", clock_label(clock));
	/* Refused (killed, even): the vDSO and the library may hand the id to it. */
	if (syscall_refused(sys)) {
		check_skip_refused(r, "clock_getres", sys);
		return;
	}
	int raw = vdsokit_clock_getres_via(VDSOKIT_ROUTE_VDSO, id, &raw_res);
	int lib = vdsokit_clock_getres(id, &lib_res);
	check_number(r, "syscall", "", sys);
	check_number(r, "vdso", "", raw);
	check_number(r, "library", "", lib);
	if (sys == 0)
		check_number(r, "resolution", "ns", timespec_ns(&sys_res));
	if (skip_fallback_refused(r, VDSOKIT_FN_CLOCK_GETRES, sys, raw, lib))
		return;
	char what[64];
	if (sys == 0)
		snprintf(what, sizeof(what), "%lld ns", (long long)timespec_ns(&sys_res));
	else
		snprintf(what, sizeof(what), "%s", errno_name(-sys));

	bool raw_present = raw != -ENOSYS;
	bool raw_same = !raw_present || (raw == sys && (sys != 0 ||
				  memcmp(&raw_res, &sys_res, sizeof(sys_res)) == 0));
	bool lib_same = lib == sys && (sys != 0 || memcmp(&lib_res, &sys_res, sizeof(sys_res)) == 0);
	char got[64];
	/* The library's answer first: it is what vdsokit promises. */
	if (!lib_same || !raw_same) {
		int rc = !lib_same ? lib : raw;
		const struct vdsokit_timespec *res = !lib_same ? &lib_res : &raw_res;
		if (rc == 0)
			snprintf(got, sizeof(got), "0 (success), %lld ns", (long long)timespec_ns(res));
		else
			snprintf(got, sizeof(got), "%s", errno_name(-rc));
		if (!lib_same)
			check_set(r, CHECK_FAIL, "syscall %s, library %s", what, got);
		else
			check_set(r, vdso_difference(library_uses_vdso), "syscall %s, vDSO %s%s", what,
				  got, library_uses_vdso ? "" : "; the library sends this id to "
				  "the syscall and agrees with it");
	} else {
		check_set(r, CHECK_PASS, "%s from the syscall, %s", what,
			  raw_present ? "the vDSO and the library" : "and the library (no vDSO symbol)");
	}
}

void verify_clock_getres(struct check_list *out, const char *group)
{
	for (long clock = 0; clock < 12; clock++)
		check_getres(out, group, clock, true);
	for (unsigned i = 0; i < invalid_clock_id_count; i++)
		check_getres(out, group, invalid_clock_ids[i], true);
}

void verify_aux_clocks(struct check_list *out, const char *group, double seconds)
{
	/* Which are enabled, asked once: the time is shared among those. */
	bool enabled[AUX_CLOCK_LAST - AUX_CLOCK_FIRST + 1];
	unsigned enabled_count = 0;
	struct vdsokit_timespec ts;
	for (long clock = AUX_CLOCK_FIRST; clock <= AUX_CLOCK_LAST; clock++) {
		enabled[clock - AUX_CLOCK_FIRST] =
			reference_clock_gettime((clockid_t)clock, &ts) == 0;
		enabled_count += enabled[clock - AUX_CLOCK_FIRST];
	}
	for (long clock = AUX_CLOCK_FIRST; clock <= AUX_CLOCK_LAST; clock++) {
		/* An enabled aux clock reads like any other: the sandwich holds. */
		if (enabled[clock - AUX_CLOCK_FIRST])
			check_sandwich_gettime(out, group, clock, seconds / enabled_count);
		else
			check_rejected_gettime(out, group, clock, false);
		check_getres(out, group, clock, false);
	}
}

/* ---------------------------------------------------------------------- */
/* gettimeofday and time                                                   */
/* ---------------------------------------------------------------------- */

typedef int gettimeofday_path(struct vdsokit_timeval *tv, struct timezone *tz);

static int gtod_raw(struct vdsokit_timeval *tv, struct timezone *tz)
{
	return vdsokit_gettimeofday_via(VDSOKIT_ROUTE_VDSO, tv, tz);
}

static void check_gettimeofday_path(struct check_list *out, const char *group, const char *who,
				    gettimeofday_path *call, double seconds)
{
	struct check_result *r = check_add(out, group, "gettimeofday %s", who);
	struct vdsokit_timeval tv;
	struct timezone tz_sys, tz_path;
	/* Both references first: a refused one explains an ENOSYS of the path too. */
	int reference = reference_clock_error();
	if (syscall_refused(reference)) {
		check_skip_refused(r, "clock_gettime", reference);
		return;
	}
	/* Timezone: the kernel's sys_tz, whatever settimeofday last put there. */
	memset(&tz_sys, 0x55, sizeof(tz_sys));
	memset(&tz_path, 0xaa, sizeof(tz_path));
	int sys_tz = reference_gettimeofday(NULL, &tz_sys);
	if (syscall_refused(sys_tz)) {
		check_skip_refused(r, "gettimeofday", sys_tz);
		return;
	}
	if (call(&tv, NULL) == -ENOSYS) {
		check_set(r, CHECK_SKIP, "no vDSO gettimeofday symbol here");
		return;
	}
	int path_tz = call(&tv, &tz_path);
	if (sys_tz != path_tz || (sys_tz == 0 && (tz_sys.tz_minuteswest != tz_path.tz_minuteswest ||
						   tz_sys.tz_dsttime != tz_path.tz_dsttime))) {
		check_set(r, CHECK_FAIL, "timezone: syscall %d (%d min west, dst %d), %s %d "
			  "(%d min west, dst %d)", sys_tz, tz_sys.tz_minuteswest, tz_sys.tz_dsttime,
			  who, path_tz, tz_path.tz_minuteswest, tz_path.tz_dsttime);
		return;
	}
	int null_tz = call(&tv, NULL);
	if (null_tz != 0) {
		check_set(r, CHECK_FAIL, "a NULL timezone was refused: %s", errno_name(-null_tz));
		return;
	}

	long long rounds = 0, violations = 0;
	long reference_error = 0;
	int64_t first_before = 0, first_tv = 0, first_after = 0;
	struct bench_deadline deadline;
	bench_deadline_start(&deadline, seconds);
	for (long long n = 0;; n++) {
		if ((n & 63) == 0 && (progress_tick(), n >= 2048) && bench_deadline_passed(&deadline))
			break;
		struct vdsokit_timespec before, after;
		if (!reference_answered(reference_clock_gettime(CLOCK_REALTIME, &before),
					&reference_error))
			break;
		int rc = call(&tv, NULL);
		if (!reference_answered(reference_clock_gettime(CLOCK_REALTIME, &after),
					&reference_error))
			break;
		rounds++;
		/* In microseconds: gettimeofday truncates the same nanoseconds. */
		int64_t b = timespec_ns(&before) / 1000, a = timespec_ns(&after) / 1000;
		int64_t t = tv.tv_sec * 1000000 + tv.tv_usec;
		if (rc != 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000 || t < b || t > a) {
			if (violations++ == 0) {
				first_before = b;
				first_tv = rc ? rc : t;
				first_after = a;
			}
		}
	}
	if (reference_error) {
		check_skip_reference(r, "clock_gettime", "CLOCK_REALTIME", reference_error);
		return;
	}
	check_number(r, "rounds", "calls", rounds);
	check_number(r, "violations", "", violations);
	check_number(r, "tz_minuteswest", "min", tz_sys.tz_minuteswest);
	if (violations)
		check_set(r, CHECK_FAIL, "%lld of %lld rounds outside the CLOCK_REALTIME sandwich; "
			  "first: %lld <= %lld <= %lld us does not hold", violations, rounds,
			  (long long)first_before, (long long)first_tv, (long long)first_after);
	else
		check_set(r, CHECK_PASS, "inside the CLOCK_REALTIME sandwich in %lld rounds, "
			  "timezone equal to the syscall's (%d min west, dst %d), NULL timezone accepted",
			  rounds, tz_sys.tz_minuteswest, tz_sys.tz_dsttime);
}

typedef int time_path(int64_t *t);

static int time_raw(int64_t *t)
{
	return vdsokit_time_via(VDSOKIT_ROUTE_VDSO, t);
}

/*
 * time() returns the seconds as of the last tick (the coarse clock), so it
 * may lag CLOCK_REALTIME but never lead it: the bounds are the coarse
 * seconds before and the fine seconds after.
 */
static void check_time_path(struct check_list *out, const char *group, const char *who,
			    time_path *call, double seconds)
{
	struct check_result *r = check_add(out, group, "time %s", who);
	int64_t t = 0;
	int reference = reference_clock_error();
	if (syscall_refused(reference)) {
		check_skip_refused(r, "clock_gettime", reference);
		return;
	}
	if (call(&t) == -ENOSYS) {
		check_set(r, CHECK_SKIP, "no vDSO time symbol on this architecture or kernel");
		return;
	}
	long long rounds = 0, violations = 0, null_refused = 0;
	long reference_error = 0;
	const char *reference_clock = NULL;
	int64_t first[3] = { 0, 0, 0 };
	struct bench_deadline deadline;
	bench_deadline_start(&deadline, seconds);
	for (long long n = 0;; n++) {
		if ((n & 63) == 0 && (progress_tick(), n >= 2048) && bench_deadline_passed(&deadline))
			break;
		struct vdsokit_timespec before, after;
		/* The lower bound is another clock than the probe's: its first call may be refused. */
		if (!reference_answered(reference_clock_gettime(CLOCK_REALTIME_COARSE, &before),
					&reference_error)) {
			reference_clock = "CLOCK_REALTIME_COARSE";
			break;
		}
		int rc = call(&t);
		if (!reference_answered(reference_clock_gettime(CLOCK_REALTIME, &after),
					&reference_error)) {
			reference_clock = "CLOCK_REALTIME";
			break;
		}
		rounds++;
		if (rc != 0 || t < before.tv_sec || t > after.tv_sec) {
			if (violations++ == 0) {
				first[0] = before.tv_sec;
				first[1] = rc ? rc : t;
				first[2] = after.tv_sec;
			}
		}
		if ((n & 1023) == 0 && call(NULL) != 0)
			null_refused++;
	}
	if (reference_error) {
		check_skip_reference(r, "clock_gettime", reference_clock, reference_error);
		return;
	}
	check_number(r, "rounds", "calls", rounds);
	check_number(r, "violations", "", violations);
	if (violations)
		check_set(r, CHECK_FAIL, "%lld of %lld rounds outside [REALTIME_COARSE before, "
			  "REALTIME after]; first: %lld <= %lld <= %lld s does not hold", violations,
			  rounds, (long long)first[0], (long long)first[1], (long long)first[2]);
	else if (null_refused)
		check_set(r, CHECK_FAIL, "time(NULL) failed %lld times", null_refused);
	else
		check_set(r, CHECK_PASS, "within the CLOCK_REALTIME seconds in %lld rounds, "
			  "NULL accepted", rounds);
}

void verify_gettimeofday_and_time(struct check_list *out, const char *group, double seconds)
{
	check_gettimeofday_path(out, group, "(vDSO)", gtod_raw, seconds / 4);
	check_gettimeofday_path(out, group, "(library)", vdsokit_gettimeofday, seconds / 4);
	check_time_path(out, group, "(vDSO)", time_raw, seconds / 4);
	check_time_path(out, group, "(library)", vdsokit_time, seconds / 4);
}
