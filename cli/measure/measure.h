/* SPDX-License-Identifier: MIT */
/*
 * The measuring layer: one call timed through every route side by side
 * (measure.c), report's quick benchmark, per-call latency from the cycle
 * counter (latency.c), and the vDSO's stack use (stack_use.c).
 */
#ifndef VDSOKIT_CLI_MEASURE_H
#define VDSOKIT_CLI_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vdsokit.h"
#include "measure/stack_probe.h"

struct json_writer;

/* ---------------------------------------------------------------------- */
/* Measuring (measure.c): the engine behind bench, report and doctor       */
/* ---------------------------------------------------------------------- */

/* The ways one function can be called, side by side. */
enum bench_path {
	BENCH_LIBRARY,  /* vdsokit_clock_gettime() …: libvdsokit's own choice    */
	BENCH_VDSO,     /* the bare vDSO pointer (vdsokit_bare_entry); via(VDSO)
			   where raw_vdso_is_bare() is false                    */
	BENCH_LIBC,     /* clock_gettime(), sched_getcpu(), pthread_self() …  */
	BENCH_SYSCALL,  /* vdso_*_via(VDSOKIT_ROUTE_SYSCALL): the raw syscall      */
	BENCH_PATH_COUNT
};

/*
 * Whether bench's vDSO column calls fn's bare entry point
 * (vdsokit_bare_entry), else vdsokit_*_via(VDSOKIT_ROUTE_VDSO): powerpc,
 * getrandom, the thread pointer.
 */
bool raw_vdso_is_bare(enum vdsokit_func fn);

/* "vdsokit", "vdso", "libc", "syscall": also the JSON keys. */
const char *bench_path_name(enum bench_path path);
/* Longer column headings for people: "libvdsokit", "raw vDSO", …       */
const char *bench_path_title(enum bench_path path);

/* One function with one argument: a clock id, or getrandom's length. */
struct bench_case {
	enum vdsokit_func func;
	long arg;
	char label[48];            /* "clock_gettime(MONOTONIC)", "getrandom(256)" */
};

/* Statistics over the batch means of one path of one case. */
struct bench_result {
	bool available;            /* false: path absent (no vDSO symbol …)   */
	long first_result;         /* what one call returned: 0, -EINVAL, a cpu … */
	int refused;               /* -EPERM…: the call is refused here (syscall_refused);
				      not timed, the figures stay NaN     */
	double median_ns, min_ns, p90_ns, mean_ns; /* of batch means, ns/call */
	uint64_t calls;            /* timed calls, all batches               */
	unsigned batches;
	uint64_t calls_per_batch;
	double batch_ns;           /* the batch length aimed at (see below)  */
};

/*
 * The rounds go on until `seconds` are spent.  A budget that holds more
 * than max_batches rounds of batch_ns gets longer batches instead, and
 * batches that run shorter than calibrated (sized while the machine was
 * busy) double when the means fill up: at most max_batches means per path
 * are kept (2 x max_batches when the rounds were planned past it), and the
 * run still takes the time asked for (tests/cli-measure-budget.t).
 */
struct bench_config {
	double seconds;            /* wall-clock budget of one measuring call */
	double batch_ns;           /* shortest calibrated batch (50 µs)       */
	unsigned min_batches;      /* at least 31, even past the budget       */
	unsigned max_batches;      /* means kept per path (batches lengthen)  */
};

/*
 * getcpu's arg: the CPU alone (vdsokit_getcpu(&cpu, NULL), libc
 * sched_getcpu()) or the CPU and node (getcpu(&cpu, &node) everywhere),
 * labelled "getcpu(cpu)" and "getcpu(cpu+node)".
 */
enum { BENCH_GETCPU_CPU = 0, BENCH_GETCPU_NODE = 1 };

/* Label and argument for func (arg: clock id, getrandom length, getcpu's BENCH_GETCPU_*). */
void bench_case_init(struct bench_case *c, enum vdsokit_func func, long arg);
/*
 * vdsokit_route_of for what the case calls: for getcpu(cpu+node) on an rseq
 * area without node_id, the vDSO entry or syscall that call takes, not rseq.
 */
int bench_case_path(const struct bench_case *c, struct vdsokit_route_info *p);
/*
 * The members `route`, `reason`, `symbol`, `version` and `syscall` of the
 * JSON object being written (bench's results[], report's routes[]): p's,
 * with reason "the call fails here: EPERM" when the library's call was
 * refused (refused: the negative errno, 0 if not).
 */
void json_route_members(struct json_writer *w, const struct vdsokit_route_info *p, int refused);
/*
 * Measures the wanted paths of `count` cases within config->seconds: all
 * calibrated first, then in rounds of one batch per case and path, so that
 * a disturbance hits every figure alike.  A path the host does not have
 * (no vDSO symbol) comes back with available = false.
 */
void bench_measure_cases(const struct bench_case *cases, unsigned count,
			 const bool wanted[BENCH_PATH_COUNT], const struct bench_config *config,
			 struct bench_result (*results)[BENCH_PATH_COUNT]);
/* The same for one case. */
void bench_measure(const struct bench_case *c, const bool wanted[BENCH_PATH_COUNT],
		   const struct bench_config *config, struct bench_result results[BENCH_PATH_COUNT]);
/* The floor: an empty call through a volatile function pointer. */
void bench_measure_floor(const struct bench_config *config, struct bench_result *result);
/*
 * A plain loop of `calls` calls timed as a whole, with none of the batch
 * machinery: the independent cross-check of bench_measure's figures.
 */
double bench_plain_loop_ns(const struct bench_case *c, enum bench_path path, uint64_t calls);
/* n calls of one case through one path, nothing else: what a batch times. */
typedef void bench_loop(long arg, uint64_t n);
/*
 * The loop of a case and path, NULL if the path does not exist here.  A
 * case whose func is VDSOKIT_FN_COUNT is the floor (the empty indirect call).
 */
bench_loop *bench_loop_of(const struct bench_case *c, enum bench_path path);
/* One call of a case through a path: what it returns (-ENOSYS: path absent). */
long bench_call_once(const struct bench_case *c, enum bench_path path);
/* Pins the calling thread to cpu: 0 or a negative errno. */
int bench_pin_to_cpu(int cpu);
/* bench_clock_ns and bench_now_ns, the tool's clock: output/output.h. */
/* Whether bench_now_ns() stood still over BENCH_CLOCK_STILL_READS reads. */
bool bench_clock_frozen(void);
/*
 * How many reads in a row that return the same time make a clock frozen:
 * far more than the coarsest clock's step takes (hundreds of µs under
 * emulation), few enough to end in well under a second.
 */
#define BENCH_CLOCK_STILL_READS (1UL << 20)
/*
 * A deadline that a stopped clock cannot make a hang: passed when the
 * clock reaches it, when it is frozen, or when BENCH_DEADLINE_STILL_CHECKS
 * checks in a row read the same time (a clock that stopped later).  For
 * loops that check it every microsecond or more.
 */
#define BENCH_DEADLINE_STILL_CHECKS (1UL << 16)
struct bench_deadline {
	double at, last;
	unsigned long still;
};
void bench_deadline_start(struct bench_deadline *d, double seconds);
bool bench_deadline_passed(struct bench_deadline *d);

/*
 * report's quick benchmark (quick.c), shared with metrics: the calls
 * people make most (clock_gettime of REALTIME, MONOTONIC, MONOTONIC_COARSE
 * and PROCESS_CPUTIME_ID, gettimeofday, time, getcpu, the thread pointer,
 * getrandom(16)), through the library and the raw syscall.  A refused
 * call has r[path].refused set and no figures (NaN).
 */
#define QUICK_COUNT 9
struct quick_row {
	struct bench_case c;
	struct vdsokit_route_info route;      /* bench_case_path of c                */
	struct bench_result r[BENCH_PATH_COUNT]; /* BENCH_LIBRARY, BENCH_SYSCALL */
};
/* The cases and their routes, nothing measured yet. */
void report_quick_rows(struct quick_row rows[QUICK_COUNT]);
/* Measures them for `seconds` (at least 31 batches each), pinned to the current CPU. */
void report_quick_measure(struct quick_row rows[QUICK_COUNT], double seconds);

/*
 * How libvdsokit serves each function, and each clock id 0-11 of the clock
 * functions: the routes report shows in text and JSON and metrics exports,
 * listed once (quick.c).  refused: the error the library's call
 * of a function that is not per clock failed with in the quick benchmark
 * (rows, NULL when none ran), 0 if none; what was measured overrides the
 * route the library names.
 */
#define REPORT_CLOCK_IDS 12
#define REPORT_ROUTES_MAX (2 * REPORT_CLOCK_IDS + VDSOKIT_FN_COUNT)
struct report_route {
	enum vdsokit_func fn;
	bool per_clock;
	long clock;                       /* per_clock only */
	struct vdsokit_route_info info;
	int refused;
};
unsigned report_routes(struct report_route out[REPORT_ROUTES_MAX], const struct quick_row *rows);

/* ---------------------------------------------------------------------- */
/* Per-call latency from the CPU's cycle counter (latency.c)               */
/* ---------------------------------------------------------------------- */

struct latency_result {
	bool available;
	unsigned samples;
	double p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
	double resolution_ns;      /* the counter's step: smaller figures are noise */
};

/*
 * Whether this build can time single calls: x86's TSC, invariant and
 * readable in user space.  Elsewhere the counters readable in user space
 * tick too slowly (arm64's CNTVCT: 1–50 MHz) for a 20 ns call.
 */
bool latency_supported(void);
/*
 * Times `samples` single calls of a case through a path, each between
 * fenced TSC reads, less the median cost of timing an empty call; the
 * percentiles of those, in ns (the TSC rate measured against
 * CLOCK_MONOTONIC_RAW once, over 10 ms).  available = false when the path
 * does not exist here or latency_supported() is false.
 */
void latency_measure(const struct bench_case *c, enum bench_path path, unsigned samples,
		     struct latency_result *out);

/* ---------------------------------------------------------------------- */
/* The vDSO's stack use (stack_use.c, on stack_probe.c): info and doctor   */
/* ---------------------------------------------------------------------- */

/* Clock ids 0..11: every clock the vDSO may serve. */
#define VDSO_STACK_MAX_CLOCKS 12

struct vdso_stack_clock {
	long clock;                       /* -1 for a function without a clock */
	struct stack_probe_result result;
};

struct vdso_stack_use {
	bool measured;                    /* at least one call measured        */
	size_t deepest;                   /* bytes below the stack pointer, the
					     deepest over its clocks          */
	bool page_granular;               /* deepest is a page-granular bound  */
	size_t written;                   /* there: the deepest byte written    */
	long deepest_clock;               /* where it was, -1: no clock        */
	bool through_library;             /* via(VDSO), not the bare entry     */
	unsigned clock_count;             /* clocks measured                    */
	struct vdso_stack_clock clocks[VDSO_STACK_MAX_CLOCKS];
	char why[200];                    /* !measured: why not                 */
};

/* Calls fn's vDSO entry for each clock the library sends to the vDSO. */
void vdso_stack_measure(enum vdsokit_func fn, struct vdso_stack_use *u);
/* "72 B", "<= 8192 B" (page-granular) or "-". */
const char *vdso_stack_text(char *buf, size_t size, const struct vdso_stack_use *u);
/* "stack": {...} or null, and "stack_unmeasured_reason". */
void vdso_stack_json(struct json_writer *w, const struct vdso_stack_use *u);

#endif /* VDSOKIT_CLI_MEASURE_H */
