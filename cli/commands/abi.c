/* SPDX-License-Identifier: MIT */
/*
 * vdsokit abi: what bad input does, through the syscall, the raw vDSO and
 * the library.
 *
 * Every call of every case runs in its own child process, so that a
 * SIGSEGV (what a vDSO does with a bad pointer, where the syscall says
 * EFAULT) is a result to report and not the end of the run.  The report
 * then says plainly, per function, where the vDSO and the library differ
 * from the syscall: that is the contract a caller signs up for.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/abi.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "images/images.h"
#include "checks/checks.h"
#include "checks/reference.h"
#include "host/child.h"

#define MAX_CASES 128
#define CHILD_TIMEOUT_SECONDS 5

enum path { PATH_SYSCALL, PATH_VDSO, PATH_LIBRARY, PATH_COUNT };

static const char *const path_keys[PATH_COUNT] = { "syscall", "vdso", "library" };
static const enum vdsokit_route path_via[PATH_COUNT] = {
	VDSOKIT_ROUTE_SYSCALL, VDSOKIT_ROUTE_VDSO, VDSOKIT_ROUTE_AUTO,
};

enum outcome_kind {
	OUTCOME_RETURNED,   /* value: 0, a count, or a negative errno   */
	OUTCOME_SIGNAL,     /* the call killed the child                */
	OUTCOME_ABSENT,     /* no vDSO symbol for this function here    */
	OUTCOME_TIMEOUT,    /* it never returned                        */
	OUTCOME_NOT_RUN,    /* the child could not be started or lost   */
	OUTCOME_REFUSED,    /* the syscall, the reference, is refused or
			     * missing here: the case compares nothing */
};

struct outcome {
	enum outcome_kind kind;
	long value;
	int sig;
	const char *why;    /* OUTCOME_NOT_RUN: what failed ("fork"); value: -errno or 0 */
};

struct case_result {
	struct outcome paths[PATH_COUNT];
};

/* Written by a child, read by the parent after waitpid. */
struct child_slot {
	volatile int started;   /* the child's setup is done: the call is next */
	volatile int done;
	volatile long value;
};

/* "fork: EAGAIN": why a case was not run, in a table cell's width. */
static const char *not_run_reason(const struct outcome *o, char *buf, size_t size)
{
	const char *why = o->why ? o->why : "not run";
	if (o->value < 0)
		snprintf(buf, size, "%s: %s", why, errno_name((int)-o->value));
	else
		snprintf(buf, size, "%s", why);
	return buf;
}

static const char *outcome_text(const struct outcome *o, char *buf, size_t size)
{
	char sig[16];
	switch (o->kind) {
	case OUTCOME_RETURNED:
		if (o->value < 0 && o->value >= -4095)
			snprintf(buf, size, "%s", errno_name((int)-o->value));
		else
			snprintf(buf, size, "%ld", o->value);
		break;
	case OUTCOME_SIGNAL:
		snprintf(buf, size, "%s", signal_name(o->sig, sig, sizeof(sig)));
		break;
	case OUTCOME_ABSENT:
		snprintf(buf, size, "absent");
		break;
	case OUTCOME_TIMEOUT:
		snprintf(buf, size, "hang");
		break;
	case OUTCOME_NOT_RUN:
		not_run_reason(o, buf, size);
		break;
	case OUTCOME_REFUSED:
		if (o->sig)
			snprintf(buf, size, "refused (%s)", signal_name(o->sig, sig, sizeof(sig)));
		else
			snprintf(buf, size, "refused (%s)", errno_name((int)-o->value));
		break;
	}
	return buf;
}

static bool same_outcome(const struct outcome *a, const struct outcome *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == OUTCOME_RETURNED)
		return a->value == b->value;
	if (a->kind == OUTCOME_SIGNAL)
		return a->sig == b->sig;
	return true;
}

/*
 * The path returned what the vDSO entry returned, a refusal (EPERM,
 * ENOSYS) the syscall did not: the entry's own fallback syscall, not the
 * reference (i386's 32-bit clock_getres beside clock_getres_time64), was
 * refused by a sandbox.  The sandbox's answer, not the path's: not
 * compared (as in verify), except where the vDSO declines with -ENOSYS.
 */
static bool fallback_refused(const struct case_result *r, enum path p)
{
	const struct outcome *o = &r->paths[p], *v = &r->paths[PATH_VDSO];
	const struct outcome *s = &r->paths[PATH_SYSCALL];
	return p != PATH_SYSCALL && o->kind == OUTCOME_RETURNED && v->kind == OUTCOME_RETURNED &&
	       s->kind == OUTCOME_RETURNED && o->value == v->value && v->value != s->value &&
	       syscall_refused(v->value) && !(v->value == -ENOSYS && VDSOKIT__VDSO_MAY_DECLINE);
}

/* Whether the path's outcome and the syscall's were both had (absent counts as had). */
static bool compared_case(const struct case_result *r, enum path p)
{
	return r->paths[p].kind != OUTCOME_NOT_RUN && r->paths[PATH_SYSCALL].kind != OUTCOME_NOT_RUN &&
	       r->paths[PATH_SYSCALL].kind != OUTCOME_REFUSED && !fallback_refused(r, p);
}

/* Whether the path's outcome counts as a difference from the syscall's. */
static bool differs(const struct case_result *r, enum path p)
{
	if (fallback_refused(r, p))
		return false;
	if (r->paths[p].kind == OUTCOME_ABSENT || r->paths[p].kind == OUTCOME_NOT_RUN ||
	    r->paths[PATH_SYSCALL].kind == OUTCOME_NOT_RUN ||
	    r->paths[PATH_SYSCALL].kind == OUTCOME_REFUSED)
		return false;
	return !same_outcome(&r->paths[p], &r->paths[PATH_SYSCALL]);
}

static void run_in_child(const struct abi_case *c, enum path p, const struct abi_memory *m,
			 struct child_slot *slot, struct outcome *o)
{
	static char setup_why[160];
	slot->started = 0;
	slot->done = 0;
	slot->value = 0;
	pid_t pid = child_start();
	if (pid < 0 && errno != ECHILD) {
		o->kind = OUTCOME_NOT_RUN;
		o->value = -errno;
		o->why = "fork";
		return;
	}
	if (pid < 0) {
		/* Died in its setup.  Every case fails alike: one buffer holds the one reason. */
		snprintf(setup_why, sizeof(setup_why), "%s", child_start_why());
		o->kind = OUTCOME_NOT_RUN;
		o->value = 0;
		o->why = setup_why;
		return;
	}
	if (pid == 0) {
		/* No core files for the crashes this is all about. */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		alarm(CHILD_TIMEOUT_SECONDS);
		slot->started = 1;
		long v = abi_case_call(c, path_via[p], m);
		slot->value = v;
		slot->done = 1;
		_exit(0);
	}
	int status, e = child_wait(pid, &status);
	if (e) {
		o->kind = OUTCOME_NOT_RUN;
		o->value = e;
		o->why = "waitpid";
		return;
	}
	if (WIFSIGNALED(status) && !slot->started) {
		/* Not the call's doing: a SIGSYS here is no refused reference. */
		snprintf(setup_why, sizeof(setup_why), "the child died in its setup (prctl, "
			 "sigaction, alarm) before the call: killed by %s", WTERMSIG(status) == SIGSYS ?
			 "SIGSYS (a seccomp filter)" : strsignal(WTERMSIG(status)));
		o->kind = OUTCOME_NOT_RUN;
		o->value = 0;
		o->why = setup_why;
	} else if (WIFSIGNALED(status)) {
		o->sig = WTERMSIG(status);
		o->kind = o->sig == SIGALRM ? OUTCOME_TIMEOUT : OUTCOME_SIGNAL;
	} else if (slot->done) {
		o->kind = OUTCOME_RETURNED;
		o->value = slot->value;
	} else {
		o->kind = OUTCOME_NOT_RUN;
		o->value = 0;
		o->why = "child exited without a result";
	}
}

/*
 * The syscall's outcome is the reference: refused by a sandbox (EPERM,
 * ENOSYS, killed by SIGSYS) or missing in the kernel, it says nothing about
 * the case, and the case compares nothing.
 */
static void refuse_reference(struct outcome *o)
{
	if (o->kind == OUTCOME_RETURNED && syscall_refused(o->value)) {
		o->kind = OUTCOME_REFUSED;
		o->sig = 0;
	} else if (o->kind == OUTCOME_SIGNAL && o->sig == SIGSYS) {
		o->kind = OUTCOME_REFUSED;
	}
}

/* Why the first refused case of each function was skipped, on out (one line each). */
static unsigned print_refused(FILE *out, const char *indent, const struct abi_case *cases,
			      const struct case_result *results, unsigned count)
{
	unsigned total = 0;
	bool said[VDSOKIT_FN_COUNT] = { false };
	for (unsigned i = 0; i < count; i++) {
		const struct outcome *o = &results[i].paths[PATH_SYSCALL];
		if (o->kind != OUTCOME_REFUSED)
			continue;
		total++;
		if (!out || said[cases[i].fn])
			continue;
		said[cases[i].fn] = true;
		unsigned n = 0;
		for (unsigned j = 0; j < count; j++)
			n += cases[j].fn == cases[i].fn &&
			     results[j].paths[PATH_SYSCALL].kind == OUTCOME_REFUSED;
		char why[240];
		fprintf(out, "%s%u %s case%s skipped: %s\n", indent, n, cli_func_name(cases[i].fn),
			n == 1 ? "" : "s", o->sig ?
			reference_why_killed(cli_func_name(cases[i].fn), why, sizeof(why)) :
			reference_why(cli_func_name(cases[i].fn), o->value, why, sizeof(why)));
	}
	return total;
}

/* Whether the vDSO has the function at all: a valid call says -ENOSYS if not. */
static void probe_vdso(bool present[VDSOKIT_FN_COUNT])
{
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	int64_t t;
	unsigned cpu, node;
	unsigned char buf[16];
	present[VDSOKIT_FN_CLOCK_GETTIME] =
		vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, CLOCK_MONOTONIC, &ts) != -ENOSYS;
	present[VDSOKIT_FN_CLOCK_GETRES] =
		vdsokit_clock_getres_via(VDSOKIT_ROUTE_VDSO, CLOCK_MONOTONIC, &ts) != -ENOSYS;
	present[VDSOKIT_FN_GETTIMEOFDAY] = vdsokit_gettimeofday_via(VDSOKIT_ROUTE_VDSO, &tv, NULL) != -ENOSYS;
	present[VDSOKIT_FN_TIME] = vdsokit_time_via(VDSOKIT_ROUTE_VDSO, &t) != -ENOSYS;
	present[VDSOKIT_FN_GETCPU] = vdsokit_getcpu_via(VDSOKIT_ROUTE_VDSO, &cpu, &node) != -ENOSYS;
	present[VDSOKIT_FN_GETRANDOM] = vdsokit_getrandom_via(VDSOKIT_ROUTE_VDSO, buf, sizeof(buf), 0) != -ENOSYS;
	present[VDSOKIT_FN_THREAD_POINTER] = false;
}

/*
 * A child that sleeps until killed: the "other process" of the CPU-clock
 * cases.  It sleeps in read() on a pipe whose write end only this process
 * (and the children it forks) holds: killed, or where a sandbox refuses
 * kill() and the parent-death signal, it wakes at the tool's exit, any
 * exit, to EOF and ends.
 */
static char sleeper_error[160];   /* why start_sleeper found no second process */

static pid_t start_sleeper(void)
{
	int fd[2];
	if (pipe2(fd, O_CLOEXEC) != 0) {
		snprintf(sleeper_error, sizeof(sleeper_error), "pipe: %s", errno_name(errno));
		return 0;
	}
	pid_t pid = child_start();
	if (pid < 0) {
		if (errno == ECHILD)
			snprintf(sleeper_error, sizeof(sleeper_error), "%s", child_start_why());
		else
			snprintf(sleeper_error, sizeof(sleeper_error), "fork: %s", errno_name(errno));
		close(fd[0]);
		close(fd[1]);
		return 0;
	}
	if (pid == 0) {
		close(fd[1]);
		char c;
		while (read(fd[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(fd[0]);
	/* fd[1] stays open, unused, until this process ends. */
	return pid;
}

/* A pid no process has: one of a child that has been reaped. */
static pid_t find_gone_pid(void)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		pid_t pid = child_start();
		if (pid < 0)
			return 0;
		if (pid == 0)
			_exit(0);
		if (child_wait(pid, NULL) != 0)
			return 0;
		/* A refused kill() (EPERM) proves nothing: no such pid then. */
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return pid;
	}
	return 0;
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s abi [--json] [--image FILE]\n"
		"\n"
		"Calls every function with bad input - invalid clock ids; NULL, unmapped,\n"
		"read-only, partly mapped, misaligned and kernel-address pointers; CPU-time\n"
		"clock ids of other and of nonexistent processes - through the raw syscall,\n"
		"the raw vDSO symbol and libvdsokit, each call in its own child process, and\n"
		"reports the return value, errno or signal of each, and where the vDSO and\n"
		"the library differ from the syscall (e.g. SIGSEGV instead of EFAULT).\n"
		"The library's contract: docs/abi-contract.md.\n"
		"\n"
		"Options:\n"
		"  --json        machine-readable output (schema vdsokit-abi)\n"
		"  --image FILE  test aid: call the functions of this vDSO image file\n"
		"                instead of the process's vDSO; refused (exit 2) when its\n"
		"                code cannot run from a file: truncated, or a dump of a\n"
		"                live vDSO, which reads the kernel's data pages\n"
		"  -h, --help    this help\n"
		"\n"
		"A path that returns a different value from the syscall's (not a crash\n"
		"where the syscall says EFAULT, but, say, 0 where it says EINVAL) is a\n"
		"wrong answer rather than a documented limit: each is named on stderr,\n"
		"and when the library gives one the exit status is 1.\n"
		"\n"
		"Exit status: 0 every case ran and the library returned no wrong value\n"
		"(other differences are findings, not failures), 1 a case could not be run\n"
		"or the library returned a value the syscall did not, 2 usage error.\n",
		CLI_PROGRAM);
}

/* Both returned, different values: a wrong answer, not a crash on bad memory. */
static bool value_differs(const struct case_result *r, enum path p)
{
	return !fallback_refused(r, p) && r->paths[p].kind == OUTCOME_RETURNED &&
	       r->paths[PATH_SYSCALL].kind == OUTCOME_RETURNED &&
	       r->paths[p].value != r->paths[PATH_SYSCALL].value;
}

/* Names on stderr the cases where a path returned a wrong value; how many. */
static unsigned warn_wrong_values(const struct abi_case *cases, const struct case_result *results,
				  unsigned count, enum path p, const char *who)
{
	unsigned n = 0;
	char want[32], got[32];
	for (unsigned i = 0; i < count; i++) {
		if (!value_differs(&results[i], p))
			continue;
		n++;
		fflush(stdout);   /* whole stdout lines first, for `> log 2>&1` */
		fprintf(stderr, "%s abi: warning: %s returns %s where the syscall returns %s: %s\n",
			CLI_PROGRAM, who, outcome_text(&results[i].paths[p], got, sizeof(got)),
			outcome_text(&results[i].paths[PATH_SYSCALL], want, sizeof(want)),
			cases[i].call);
	}
	return n;
}

/* ---------------------------------------------------------------------- */
/* Findings: the differences grouped per function and outcome pair         */
/* ---------------------------------------------------------------------- */

struct finding {
	enum path path;
	enum vdsokit_func fn;
	char syscall[24], other[24];
	char arguments[512];
	unsigned count;
};

/*
 * The run's result, which the text and the JSON both render: the cases and
 * their outcomes, the findings, and every count said in a summary, counted
 * once here so that the two cannot disagree.
 */
struct abi_run {
	const struct abi_case *cases;
	const struct case_result *results;
	unsigned count;
	bool differs[MAX_CASES][PATH_COUNT];    /* differs(), per case and path */
	const struct finding *findings[PATH_COUNT];
	unsigned finding_count[PATH_COUNT];
	unsigned not_run;                       /* cases with a path not run */
	unsigned refused;                       /* cases whose reference was refused */
	unsigned compared[PATH_COUNT];          /* cases compared_case() for the path */
	unsigned differ_count[PATH_COUNT];      /* cases where the path differs */
	struct host_facts host;
	int init_result;
};

static unsigned collect_findings(const struct abi_case *cases, const struct case_result *results,
				 unsigned count, enum path p, struct finding *out, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < count; i++) {
		if (!differs(&results[i], p))
			continue;
		char s[24], o[24];
		outcome_text(&results[i].paths[PATH_SYSCALL], s, sizeof(s));
		outcome_text(&results[i].paths[p], o, sizeof(o));
		struct finding *f = NULL;
		for (unsigned j = 0; j < n; j++)
			if (out[j].fn == cases[i].fn && strcmp(out[j].syscall, s) == 0 &&
			    strcmp(out[j].other, o) == 0)
				f = &out[j];
		if (!f) {
			if (n == max)
				continue;
			f = &out[n++];
			memset(f, 0, sizeof(*f));
			f->path = p;
			f->fn = cases[i].fn;
			snprintf(f->syscall, sizeof(f->syscall), "%s", s);
			snprintf(f->other, sizeof(f->other), "%s", o);
		}
		size_t used = strlen(f->arguments);
		snprintf(f->arguments + used, sizeof(f->arguments) - used, "%s%s",
			 f->count ? "; " : "", cases[i].argument);
		f->count++;
	}
	return n;
}

static void finding_sentence(const struct finding *f, char *buf, size_t size)
{
	snprintf(buf, size, "%s: %s instead of %s (%s)", cli_func_name(f->fn), f->other,
		 f->syscall, f->arguments);
}

/* The run's model, from the outcomes: findings, per-case differences and the counts. */
static void abi_run_build(struct abi_run *run, const struct abi_case *cases,
			  const struct case_result *results, unsigned count, unsigned not_run,
			  int init_result)
{
	static struct finding found[PATH_COUNT][MAX_CASES];
	memset(run, 0, sizeof(*run));
	run->cases = cases;
	run->results = results;
	run->count = count;
	run->not_run = not_run;
	run->init_result = init_result;
	host_facts_read(&run->host);
	for (unsigned p = PATH_VDSO; p < PATH_COUNT; p++) {
		run->findings[p] = found[p];
		run->finding_count[p] = collect_findings(cases, results, count, p, found[p],
							 MAX_CASES);
	}
	run->refused = print_refused(NULL, "", cases, results, count);
	for (unsigned i = 0; i < count; i++) {
		for (unsigned p = PATH_VDSO; p < PATH_COUNT; p++) {
			run->differs[i][p] = differs(&results[i], p);
			run->differ_count[p] += run->differs[i][p];
			run->compared[p] += compared_case(&results[i], p);
		}
	}
}

static void print_text(const struct abi_run *run)
{
	static const char *const headers[] = { "#", "call", "syscall", "vDSO", "library", "differs" };
	static const enum table_align align[] = { TABLE_RIGHT, TABLE_LEFT, TABLE_LEFT, TABLE_LEFT,
						  TABLE_LEFT, TABLE_LEFT };
	const struct abi_case *cases = run->cases;
	const struct case_result *results = run->results;
	unsigned count = run->count, not_run = run->not_run;
	const struct host_facts *h = &run->host;
	printf("vdsokit abi: Linux %s, library %s, %s%s; %u cases, each call in its own "
	       "child process\n\n", host_kernel_text(h), vdsokit_arch_name(),
	       cli_image_path() ? "image " : "vDSO ", cli_image_path() ? text_shown(cli_image_path()) :
	       h->auxv_sysinfo_ehdr ? "mapped" : "not mapped", count);

	struct table t;
	table_init(&t, 6, headers, align);
	for (unsigned i = 0; i < count; i++) {
		char text[PATH_COUNT][24];
		for (unsigned p = 0; p < PATH_COUNT; p++)
			outcome_text(&results[i].paths[p], text[p], sizeof(text[p]));
		bool dv = run->differs[i][PATH_VDSO], dl = run->differs[i][PATH_LIBRARY];
		table_row(&t);
		table_cellf(&t, "%u", i + 1);
		table_cell(&t, cases[i].call);
		table_cell(&t, text[PATH_SYSCALL]);
		table_cell(&t, text[PATH_VDSO]);
		table_cell(&t, text[PATH_LIBRARY]);
		table_cell(&t, dv && dl ? "vDSO, library" : dv ? "vDSO" : dl ? "library" : "");
	}
	table_print(&t, stdout, "  ");
	table_free(&t);

	static const char *const titles[PATH_COUNT] = {
		NULL,
		"Where the raw vDSO differs from the syscall (what a direct vDSO caller gets):",
		"Where libvdsokit differs from the syscall (its contract: docs/abi-contract.md):",
	};
	for (unsigned p = PATH_VDSO; p < PATH_COUNT; p++) {
		printf("\n%s\n", p == PATH_VDSO && cli_image_path() ?
		       "Where the image's code differs from the syscall (what a direct caller of "
		       "its symbols gets):" : titles[p]);
		/* "Nowhere" is a claim about the cases compared, and only those. */
		unsigned compared = run->compared[p];
		if (run->finding_count[p] == 0 && compared == 0)
			printf("  unknown: no case could be compared (%u could not be run)\n", not_run);
		else if (run->finding_count[p] == 0 && compared < count)
			printf("  nowhere in the %u cases compared: same return value, errno or "
			       "signal (the other %u could not be compared)\n", compared,
			       count - compared);
		else if (run->finding_count[p] == 0)
			printf("  nowhere: same return value, errno or signal in every case\n");
		for (unsigned j = 0; j < run->finding_count[p]; j++) {
			char sentence[640];
			finding_sentence(&run->findings[p][j], sentence, sizeof(sentence));
			printf("  %s\n", sentence);
		}
	}
	unsigned refused = run->refused;
	if (refused) {
		printf("\nSkipped, nothing to compare with:\n");
		print_refused(stdout, "  ", cases, results, count);
	}
	if (not_run == count)
		printf("\n%u cases: none ran, %u could not be run: nothing compared\n", count, not_run);
	else
		printf("\n%u cases: %u ran, %u could not be run, %u skipped (the reference refused); "
		       "the vDSO differs from the syscall in %u, the library in %u\n", count,
		       count - not_run, not_run, refused, run->differ_count[PATH_VDSO],
		       run->differ_count[PATH_LIBRARY]);
}

static void json_outcome(struct json_writer *w, const char *key, const struct outcome *o,
			 const char *w_syscall)
{
	char sig[16];
	json_key(w, key);
	json_object_begin(w);
	static const char *const kinds[] = { "returned", "signal", "absent", "timeout", "not_run",
					     "refused" };
	json_kv_string(w, "outcome", kinds[o->kind]);
	if (o->kind == OUTCOME_RETURNED) {
		json_kv_int(w, "return", o->value);
		json_kv_string(w, "errno", o->value < 0 && o->value >= -4095 ?
			       errno_name((int)-o->value) : NULL);
	}
	if (o->kind == OUTCOME_SIGNAL || o->kind == OUTCOME_TIMEOUT)
		json_kv_string(w, "signal", signal_name(o->sig, sig, sizeof(sig)));
	if (o->kind == OUTCOME_NOT_RUN) {
		char why[200];
		json_kv_string(w, "reason", not_run_reason(o, why, sizeof(why)));
	}
	if (o->kind == OUTCOME_REFUSED) {
		char why[240];
		json_kv_string(w, "error", o->sig ? NULL : errno_name((int)-o->value));
		json_kv_string(w, "signal", o->sig ? signal_name(o->sig, sig, sizeof(sig)) : NULL);
		json_kv_string(w, "reason", o->sig ? reference_why_killed(w_syscall, why, sizeof(why)) :
			       reference_why(w_syscall, o->value, why, sizeof(why)));
	}
	json_object_end(w);
}

static void print_json(const struct abi_run *run)
{
	struct json_writer w;
	const struct abi_case *cases = run->cases;
	const struct case_result *results = run->results;
	unsigned count = run->count;
	json_document_begin(&w, stdout, "abi");
	json_host(&w, &run->host, run->init_result);
	json_kv_string(&w, "image", cli_image_path());
	json_key(&w, "cases");
	json_array_begin(&w);
	for (unsigned i = 0; i < count; i++) {
		const struct abi_case *c = &cases[i];
		json_object_begin(&w);
		json_kv_int(&w, "id", i + 1);
		json_kv_string(&w, "function", cli_func_name(c->fn));
		json_kv_string(&w, "category", c->category);
		json_kv_string(&w, "argument", c->argument);
		json_kv_string(&w, "call", c->call);
		if (c->fn == VDSOKIT_FN_CLOCK_GETTIME || c->fn == VDSOKIT_FN_CLOCK_GETRES)
			json_kv_int(&w, "clock", c->clock);
		json_kv_string(&w, "pointer", abi_pointer_name(c->pointer));
		for (unsigned p = 0; p < PATH_COUNT; p++)
			json_outcome(&w, path_keys[p], &results[i].paths[p], cli_func_name(c->fn));
		json_key(&w, "vdso_differs");
		if (results[i].paths[PATH_VDSO].kind == OUTCOME_ABSENT)
			json_null(&w);
		else
			json_bool(&w, run->differs[i][PATH_VDSO]);
		json_kv_bool(&w, "library_differs", run->differs[i][PATH_LIBRARY]);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_key(&w, "findings");
	json_array_begin(&w);
	for (unsigned p = PATH_VDSO; p < PATH_COUNT; p++) {
		for (unsigned j = 0; j < run->finding_count[p]; j++) {
			const struct finding *f = &run->findings[p][j];
			char sentence[640];
			finding_sentence(f, sentence, sizeof(sentence));
			json_object_begin(&w);
			json_kv_string(&w, "path", path_keys[p]);
			json_kv_string(&w, "function", cli_func_name(f->fn));
			json_kv_string(&w, "syscall", f->syscall);
			json_kv_string(&w, "instead", f->other);
			json_kv_int(&w, "cases", f->count);
			json_kv_string(&w, "text", sentence);
			json_object_end(&w);
		}
	}
	json_array_end(&w);
	json_key(&w, "summary");
	json_object_begin(&w);
	json_kv_int(&w, "cases", count);
	json_kv_int(&w, "ran", count - run->not_run);
	json_kv_int(&w, "not_run", run->not_run);
	json_kv_int(&w, "refused", run->refused);
	/* Counts of differences exist only where something was compared. */
	json_key(&w, "vdso_differs");
	if (run->not_run == count)
		json_null(&w);
	else
		json_int(&w, run->differ_count[PATH_VDSO]);
	json_key(&w, "library_differs");
	if (run->not_run == count)
		json_null(&w);
	else
		json_int(&w, run->differ_count[PATH_LIBRARY]);
	json_object_end(&w);
	json_document_end(&w);
}

int cmd_abi(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "image", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *image = NULL;
	int c;
	while ((c = cli_getopt(argc, argv, "h", options)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'i':
			image = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return CLI_EXIT_OK;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
	if (image && use_image_file(argv[0], image) != 0)
		return CLI_EXIT_USAGE;

	/*
	 * Resolve now, and let every path make its first call here: each child
	 * must inherit the same ready state, and a first-use mapping (the
	 * library's getrandom state) made in a child could land on the page
	 * the cases call unmapped.
	 */
	int init_result = vdsokit_init();
	bool present[VDSOKIT_FN_COUNT];
	probe_vdso(present);
	unsigned char first_use[16];
	vdsokit_getrandom(first_use, sizeof(first_use), 0);
	struct child_slot *slot = mmap(NULL, sizeof(*slot), PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slot == MAP_FAILED)
		return cli_error(argv[0], NULL, "cannot map the result page: %s", strerror(errno));
	/* Last of the mappings, so that nothing reuses the page it unmaps. */
	struct abi_memory memory;
	const char *what = "";
	int e = abi_memory_init(&memory, &what);
	if (e)
		return cli_error(argv[0], NULL, "cannot prepare the test memory (%s): %s", what,
				 strerror(-e));

	struct abi_processes procs = { getpid(), start_sleeper(), find_gone_pid() };
	static struct abi_case cases[MAX_CASES];
	static struct case_result results[MAX_CASES];
	unsigned count = abi_cases_build(cases, MAX_CASES, &procs);

	unsigned not_run = 0;
	for (unsigned i = 0; i < count; i++) {
		bool lost = false;
		if (!abi_memory_still_unmapped(&memory)) {
			/* An "unmapped" case that hits memory would report nonsense. */
			for (unsigned p = 0; p < PATH_COUNT; p++) {
				results[i].paths[p].kind = OUTCOME_NOT_RUN;
				results[i].paths[p].why = "the unmapped test page got mapped";
			}
			not_run++;
			continue;
		}
		for (unsigned p = 0; p < PATH_COUNT; p++) {
			struct outcome *o = &results[i].paths[p];
			if (p == PATH_VDSO && !present[cases[i].fn])
				o->kind = OUTCOME_ABSENT;
			else
				run_in_child(&cases[i], p, &memory, slot, o);
			if (p == PATH_SYSCALL)
				refuse_reference(o);
			lost |= o->kind == OUTCOME_NOT_RUN;
		}
		not_run += lost;
	}
	/* A refused kill() leaves the sleeper to its pipe's EOF at our exit: no wait for it. */
	int stopped = child_stop(procs.other);
	if (stopped)
		cli_warning(argv[0], "cannot end the sleeping child %d (kill: %s): it ends when "
			    "this process does", (int)procs.other, errno_name(-stopped));
	if (!procs.other)
		cli_warning(argv[0], "no second process (%s): the cases with another "
			    "process's clock were left out", sleeper_error);

	static struct abi_run run;
	abi_run_build(&run, cases, results, count, not_run, init_result);
	if (json)
		print_json(&run);
	else
		print_text(&run);
	if (not_run) {
		/* The first reason stands for the rest: a failed fork fails them all alike. */
		char why[200] = "";
		for (unsigned i = 0; i < count && !why[0]; i++)
			for (unsigned p = 0; p < PATH_COUNT && !why[0]; p++)
				if (results[i].paths[p].kind == OUTCOME_NOT_RUN)
					not_run_reason(&results[i].paths[p], why, sizeof(why));
		fflush(stdout);
		fprintf(stderr, "%s abi: %u case%s could not be run (first: %s)\n", CLI_PROGRAM,
			not_run, not_run == 1 ? "" : "s", why);
	}
	/* ENOSYS is a kernel without the syscall as often as a filter: said apart. */
	unsigned missing = 0, refused = 0;
	for (unsigned i = 0; i < count; i++)
		if (fallback_refused(&results[i], PATH_VDSO)) {
			if (results[i].paths[PATH_VDSO].value == -ENOSYS)
				missing++;
			else
				refused++;
		}
	fflush(stdout);
	if (missing)
		fprintf(stderr, "%s abi: %u case%s not compared: the vDSO entry's own fallback "
			"syscall returned ENOSYS (not in this kernel, as the 32-bit time ones "
			"without CONFIG_COMPAT_32BIT_TIME, or refused so by a filter), so it "
			"returned that, not an answer of its own\n", CLI_PROGRAM, missing,
			missing == 1 ? "" : "s");
	if (refused)
		fprintf(stderr, "%s abi: %u case%s not compared: the vDSO entry's own fallback "
			"syscall is refused here (a seccomp filter), so it returned the refusal, "
			"not an answer of its own\n", CLI_PROGRAM, refused,
			refused == 1 ? "" : "s");
	/* With --image the "vDSO" path is the file's code: the warning names it. */
	char vdso_who[PATH_MAX + 32] = "the raw vDSO";
	if (cli_image_path())
		snprintf(vdso_who, sizeof(vdso_who), "the image %s", text_shown(cli_image_path()));
	warn_wrong_values(cases, results, count, PATH_VDSO, vdso_who);
	unsigned library_wrong = warn_wrong_values(cases, results, count, PATH_LIBRARY,
						   "libvdsokit");
	munmap(slot, sizeof(*slot));
	return not_run || library_wrong ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
