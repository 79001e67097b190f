/* SPDX-License-Identifier: MIT */
/*
 * vdsokit bench: ns per call of every function the library offers, through
 * the library, the raw vDSO pointer, the libc and the raw syscall, side by
 * side in one run, as text, JSON, CSV and an SVG chart.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"

static const char usage[] =
	"Usage: vdsokit bench [--json | --csv] [--svg FILE] [--time SECONDS]\n"
	"                     [--functions LIST] [--clocks LIST] [--cpu N] [--detail]\n"
	"                     [--latency]\n"
	"\n"
	"Measures ns per call of each function through four paths: libvdsokit (what\n"
	"the library chooses), the raw vDSO pointer, the libc, and the raw syscall.\n"
	"Each figure is the median of at least 31 batch means: every function and\n"
	"path is warmed up and calibrated to batches of ~50 us, then the batches run\n"
	"in rounds over all of them until the budget is spent.  Min and 90th\n"
	"percentile of the batch means and the number of calls are in --detail,\n"
	"--json and --csv.  Speedup = syscall median / libvdsokit median.  The floor\n"
	"is an empty call through a function pointer; clock_gettime(MONOTONIC) is\n"
	"timed again as plain loops (best of 11) as a cross-check.\n"
	"\n"
	"Options:\n"
	"  --json            JSON on stdout (docs/json.md, schema vdsokit-bench)\n"
	"  --csv             CSV on stdout, one line per function, clock and path\n"
	"  --svg FILE        also write a bar chart (log scale) to FILE (`-`: stdout,\n"
	"                    instead of the table)\n"
	"  --time SECONDS    how long the measurement takes, default 3 (at least\n"
	"                    31 batches per path are always taken; past 4000\n"
	"                    rounds the batches grow longer than 50 us instead;\n"
	"                    --latency adds its own time)\n"
	"  --functions LIST  comma-separated: clock_gettime, clock_getres,\n"
	"                    gettimeofday, time, getcpu, thread_pointer (tp),\n"
	"                    getrandom; default all\n"
	"  --clocks LIST     clock ids for clock_gettime/clock_getres, by name\n"
	"                    (MONOTONIC, CLOCK_TAI ...) or number; default 0-11 and\n"
	"                    100 (an invalid id)\n"
	"  --cpu N           pin to CPU N (default: the CPU it starts on; -1: no pinning)\n"
	"  --detail          text: add the per-path table (min, p90, calls, batches)\n"
	"  --latency         also time 2000 single calls per path with the TSC (x86):\n"
	"                    p50, p90, p99, p99.9 and max, less the cost of timing\n"
	"                    an empty call\n"
	"  -h, --help        this help\n";

#define MAX_CASES 128
#define LATENCY_SAMPLES 2000
#define DEFAULT_BUDGET_S 3.0
#define BATCH_NS 50e3
#define MIN_BATCHES 31
#define MAX_BATCHES 4000
/* 16–23 are the auxiliary clocks since Linux 6.17: take one far above. */
#define INVALID_CLOCK 100

static const long getrandom_lengths[] = { 16, 256, 4096 };

struct bench_row {
	struct bench_case c;
	struct vdsokit_route_info route;
	bool route_known;
	struct bench_result r[BENCH_PATH_COUNT];
	struct latency_result latency[BENCH_PATH_COUNT];
};

struct crosscheck {
	const struct bench_row *row;
	enum bench_path path;
	uint64_t calls;
	double plain_ns;
	double median_ns;       /* the path's median in row */
	double difference_pct;  /* how far the median is above plain_ns, in % */
};

struct bench_run {
	struct bench_row rows[MAX_CASES];
	unsigned row_count;
	struct bench_result floor;
	struct crosscheck checks[4];
	unsigned check_count;
	struct host_facts host;
	int init_result;
	int cpu;               /* pinned CPU, -1 if not pinned */
	bool latency;          /* latency[] measured */
	double budget_s, elapsed_s;
	double batch_ns;       /* the batch length aimed at: longer for long budgets */
	struct bench_config config;
};

static double speedup(const struct bench_row *row)
{
	const struct bench_result *lib = &row->r[BENCH_LIBRARY], *sys = &row->r[BENCH_SYSCALL];
	if (!lib->available || !sys->available || lib->refused || sys->refused ||
	    !(lib->median_ns > 0))
		return NAN;
	return sys->median_ns / lib->median_ns;
}

static const char *route_label(const struct bench_row *row)
{
	if (!row->route_known)
		return "?";
	/* The library's call fails here: whatever its route, nothing runs on it. */
	if (row->r[BENCH_LIBRARY].refused)
		return "failed";
	return vdsokit_route_name(row->route.route);
}

/* ---------------------------------------------------------------------- */
/* Options                                                                 */
/* ---------------------------------------------------------------------- */

struct bench_options {
	bool json, csv, detail, latency;
	const char *svg_path;
	double budget_s;
	long cpu;
	bool cpu_given;
	bool functions[VDSOKIT_FN_COUNT];
	long clocks[32];
	unsigned clock_count;
};

static bool parse_functions(const char *list, bool functions[VDSOKIT_FN_COUNT])
{
	char *copy = strdup(list), *save = NULL;
	bool ok = copy != NULL;
	memset(functions, 0, VDSOKIT_FN_COUNT * sizeof(bool));
	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && ok;
	     tok = strtok_r(NULL, ",", &save)) {
		enum vdsokit_func fn;
		if (!cli_func_parse(tok, &fn)) {
			cli_usage_error("bench", "--functions: unknown function '%s'", tok);
			ok = false;
			break;
		}
		functions[fn] = true;
	}
	free(copy);
	return ok;
}

static bool parse_clocks(const char *list, struct bench_options *o)
{
	char *copy = strdup(list), *save = NULL;
	bool ok = copy != NULL;
	o->clock_count = 0;
	for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && ok;
	     tok = strtok_r(NULL, ",", &save)) {
		long clock;
		if (!clock_id_parse(tok, &clock)) {
			cli_usage_error("bench", "--clocks: unknown clock '%s'", tok);
			ok = false;
		} else if (o->clock_count == sizeof(o->clocks) / sizeof(o->clocks[0])) {
			cli_usage_error("bench", "--clocks: more than %zu clocks",
					sizeof(o->clocks) / sizeof(o->clocks[0]));
			ok = false;
		} else {
			/* A clock given twice is one row: labels are keys (JSON, compare). */
			bool seen = false;
			for (unsigned k = 0; k < o->clock_count; k++)
				seen |= o->clocks[k] == clock;
			if (!seen)
				o->clocks[o->clock_count++] = clock;
		}
	}
	if (ok && o->clock_count == 0) {
		cli_usage_error("bench", "--clocks: empty list");
		ok = false;
	}
	free(copy);
	return ok;
}

/* 0 to go on, or the exit status. */
static int parse_options(int argc, char **argv, struct bench_options *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "svg", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "functions", required_argument, NULL, 'f' },
		{ "clocks", required_argument, NULL, 'k' },
		{ "cpu", required_argument, NULL, 'p' },
		{ "detail", no_argument, NULL, 'd' },
		{ "latency", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof(*o));
	o->budget_s = DEFAULT_BUDGET_S;
	o->cpu = -1;
	for (unsigned f = 0; f < VDSOKIT_FN_COUNT; f++)
		o->functions[f] = true;
	for (long clock = 0; clock < 12; clock++)
		o->clocks[o->clock_count++] = clock;
	o->clocks[o->clock_count++] = INVALID_CLOCK;

	int c;
	while ((c = cli_getopt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'j': o->json = true; break;
		case 'c': o->csv = true; break;
		case 'd': o->detail = true; break;
		case 'l': o->latency = true; break;
		case 's': o->svg_path = optarg; break;
		case 't':
			if (!cli_parse_double("bench", "--time", optarg, 0, 3600, &o->budget_s))
				return CLI_EXIT_USAGE;
			break;
		case 'f':
			if (!parse_functions(optarg, o->functions))
				return CLI_EXIT_USAGE;
			break;
		case 'k':
			if (!parse_clocks(optarg, o))
				return CLI_EXIT_USAGE;
			break;
		case 'p':
			if (!cli_parse_long("bench", "--cpu", optarg, -1, CPU_SETSIZE - 1, &o->cpu))
				return CLI_EXIT_USAGE;
			o->cpu_given = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (o->json && o->csv)
		return cli_usage_error("bench", "--json and --csv are exclusive");
	if (o->svg_path && strcmp(o->svg_path, "-") == 0 && (o->json || o->csv))
		return cli_usage_error("bench", "--svg - and --%s both write to stdout",
				       o->json ? "json" : "csv");
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Measuring                                                               */
/* ---------------------------------------------------------------------- */

static void add_row(struct bench_run *run, enum vdsokit_func fn, long arg)
{
	if (run->row_count == MAX_CASES)
		return;
	struct bench_row *row = &run->rows[run->row_count++];
	memset(row, 0, sizeof(*row));
	bench_case_init(&row->c, fn, arg);
	row->route_known = bench_case_path(&row->c, &row->route) == 0;
}

static void build_rows(struct bench_run *run, const struct bench_options *o)
{
	static const enum vdsokit_func clock_functions[] = { VDSOKIT_FN_CLOCK_GETTIME,
							   VDSOKIT_FN_CLOCK_GETRES };
	for (unsigned f = 0; f < 2; f++)
		if (o->functions[clock_functions[f]])
			for (unsigned k = 0; k < o->clock_count; k++)
				add_row(run, clock_functions[f], o->clocks[k]);
	if (o->functions[VDSOKIT_FN_GETTIMEOFDAY])
		add_row(run, VDSOKIT_FN_GETTIMEOFDAY, 0);
	if (o->functions[VDSOKIT_FN_TIME])
		add_row(run, VDSOKIT_FN_TIME, 0);
	if (o->functions[VDSOKIT_FN_GETCPU]) {
		/* Asking for the node may take another path: each is its own row. */
		add_row(run, VDSOKIT_FN_GETCPU, BENCH_GETCPU_CPU);
		add_row(run, VDSOKIT_FN_GETCPU, BENCH_GETCPU_NODE);
	}
	if (o->functions[VDSOKIT_FN_THREAD_POINTER])
		add_row(run, VDSOKIT_FN_THREAD_POINTER, 0);
	if (o->functions[VDSOKIT_FN_GETRANDOM])
		for (unsigned i = 0; i < sizeof(getrandom_lengths) / sizeof(getrandom_lengths[0]); i++)
			add_row(run, VDSOKIT_FN_GETRANDOM, getrandom_lengths[i]);
}

/*
 * The independent cross-check: clock_gettime(MONOTONIC) through the library
 * and the syscall again, each as plain loops of ~2 ms timed as a whole (no
 * batches, no interleaving, no statistics but the best of 11 loops, the
 * classic tight-loop figure: a preempted loop is only ever slower).
 */
#define CROSSCHECK_LOOPS 11

static void run_crosschecks(struct bench_run *run)
{
	for (unsigned i = 0; i < run->row_count; i++) {
		const struct bench_row *row = &run->rows[i];
		if (row->c.func != VDSOKIT_FN_CLOCK_GETTIME || row->c.arg != CLOCK_MONOTONIC)
			continue;
		static const enum bench_path paths[] = { BENCH_LIBRARY, BENCH_SYSCALL };
		for (unsigned p = 0; p < 2; p++) {
			const struct bench_result *r = &row->r[paths[p]];
			if (!r->available || !(r->median_ns > 0))
				continue;
			/* One MONOTONIC row (parse_clocks drops repeats); never past the array. */
			if (run->check_count == sizeof(run->checks) / sizeof(run->checks[0]))
				return;
			struct crosscheck *check = &run->checks[run->check_count++];
			double loops[CROSSCHECK_LOOPS];
			double calls = 2e6 / r->median_ns;
			check->row = row;
			check->path = paths[p];
			check->calls = calls < 1000 ? 1000 : (uint64_t)calls;
			for (unsigned k = 0; k < CROSSCHECK_LOOPS; k++) {
				loops[k] = bench_plain_loop_ns(&row->c, paths[p], check->calls);
				progress_tick();
			}
			check->plain_ns = loops[0];
			for (unsigned k = 1; k < CROSSCHECK_LOOPS; k++)
				if (loops[k] < check->plain_ns)
					check->plain_ns = loops[k];
			check->median_ns = r->median_ns;
			check->difference_pct = (check->median_ns / check->plain_ns - 1) * 100;
		}
	}
}

static int measure(struct bench_run *run, const struct bench_options *o)
{
	double start = bench_now_ns();
	run->init_result = vdsokit_init();
	host_facts_read(&run->host);
	run->budget_s = o->budget_s;

	run->cpu = -1;
	long cpu = o->cpu_given ? o->cpu : sched_getcpu();
	if (cpu >= 0) {
		int err = bench_pin_to_cpu((int)cpu);
		if (err && o->cpu_given) {
			/* Name the CPUs that exist for it, as ranges: "0-1", "0,2-3". */
			int cpus[CPU_SETSIZE];
			unsigned n = allowed_cpus(cpus, CPU_SETSIZE);
			char list[256] = "";
			size_t used = 0;
			for (unsigned i = 0; i < n && used < sizeof(list) - 16; i++) {
				unsigned j = i;
				while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
					j++;
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%d",
							 i ? "," : "", cpus[i]);
				if (j > i)
					used += (size_t)snprintf(list + used, sizeof(list) - used, "-%d",
								 cpus[j]);
				i = j;
			}
			return cli_error("bench", NULL, "--cpu %ld: cannot pin: %s; this process may "
					 "run on CPU%s %s", cpu, strerror(-err), n == 1 ? "" : "s",
					 n ? list : "(unknown: sched_getaffinity failed)");
		}
		if (err)
			cli_warning("bench", "not pinned to a CPU: %s", strerror(-err));
		else
			run->cpu = (int)cpu;
	}

	build_rows(run, o);
	if (run->row_count == 0)
		return cli_usage_error("bench", "nothing to measure");

	/*
	 * The floor takes a small share; the cross-check loops (~50 ms) come
	 * after.  The cases share what is left, measured in one session.
	 */
	run->config.batch_ns = BATCH_NS;
	run->config.min_batches = MIN_BATCHES;
	run->config.max_batches = MAX_BATCHES;
	run->config.seconds = o->budget_s * 0.02;
	progress_begin("bench", o->budget_s);
	progress_phase("the floor");
	bench_measure_floor(&run->config, &run->floor);

	static struct bench_case cases[MAX_CASES];
	static struct bench_result results[MAX_CASES][BENCH_PATH_COUNT];
	bool wanted[BENCH_PATH_COUNT] = { true, true, true, true };
	for (unsigned i = 0; i < run->row_count; i++)
		cases[i] = run->rows[i].c;
	double left = start + o->budget_s * 0.96 * 1e9 - bench_now_ns();
	run->config.seconds = left > 0 ? left / 1e9 : 0;
	progress_phase("%u calls x %d paths", run->row_count, BENCH_PATH_COUNT);
	bench_measure_cases(cases, run->row_count, wanted, &run->config, results);
	for (unsigned i = 0; i < run->row_count; i++) {
		memcpy(run->rows[i].r, results[i], sizeof(results[i]));
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			if (results[i][p].available && results[i][p].batch_ns > run->batch_ns)
				run->batch_ns = results[i][p].batch_ns;
	}
	progress_phase("cross-check");
	run_crosschecks(run);
	if (o->latency && !latency_supported())
		cli_warning("bench", "--latency needs an invariant TSC with rdtscp (x86): left out");
	else if (o->latency) {
		run->latency = true;
		progress_phase("latency, %d single calls per path", LATENCY_SAMPLES);
		for (unsigned i = 0; i < run->row_count; i++)
			for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
				if (run->rows[i].r[p].available && !run->rows[i].r[p].refused) {
					latency_measure(&run->rows[i].c, p, LATENCY_SAMPLES,
							&run->rows[i].latency[p]);
					progress_tick();
				}
	}
	progress_end();
	run->elapsed_s = (bench_now_ns() - start) / 1e9;
	if (!(run->batch_ns > 0))
		run->batch_ns = run->config.batch_ns;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Output                                                                  */
/* ---------------------------------------------------------------------- */

static void print_header(FILE *out, const struct bench_run *run)
{
	char floor[32];
	fprintf(out, "vdsokit bench: Linux %s, clocksource %s%s%s\n",
		host_kernel_text(&run->host),
		fact_text(&run->host.clocksource),
		run->host.cpu_model.known ? ", " : "", run->host.cpu_model.text);
	if (run->init_result)
		fprintf(out, "no usable vDSO (%s): the library takes the syscall everywhere\n",
			strerror(-run->init_result));
	fprintf(out, "method: median of batch means, batches of ~%.0f %ss in rounds over "
		"all paths, >= %u each; ", run->batch_ns / 1e3, cli_micro_sign(),
		run->config.min_batches);
	if (run->cpu >= 0)
		fprintf(out, "pinned to CPU %d; ", run->cpu);
	else
		fprintf(out, "not pinned; ");
	fprintf(out, "%.2f s\n", run->elapsed_s);
	fprintf(out, "floor (empty indirect call): %s/call\n\n",
		fmt_duration_ns(floor, sizeof(floor), run->floor.median_ns));
}

static const char *result_text(char *buf, size_t size, const struct bench_result *r)
{
	if (!r->available)
		snprintf(buf, size, "absent");
	else if (r->first_result < 0 && r->first_result > -4096)
		snprintf(buf, size, "-%s", errno_name((int)-r->first_result));
	else
		snprintf(buf, size, "%ld", r->first_result);
	return buf;
}

static void print_latency(FILE *out, const struct bench_run *run)
{
	static const char *const headers[] = {
		"function/clock", "path", "p50", "p90", "p99", "p99.9", "max",
	};
	static const enum table_align align[] = {
		TABLE_LEFT, TABLE_LEFT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT,
	};
	struct table t;
	char buf[32];
	double resolution = NAN;
	table_init(&t, 7, headers, align);
	for (unsigned i = 0; i < run->row_count; i++) {
		bool first = true;
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
			const struct latency_result *l = &run->rows[i].latency[p];
			if (!l->available)
				continue;
			table_row(&t);
			table_cell(&t, first ? run->rows[i].c.label : "");
			first = false;
			table_cell(&t, bench_path_title(p));
			const double values[] = { l->p50_ns, l->p90_ns, l->p99_ns, l->p999_ns, l->max_ns };
			for (unsigned k = 0; k < 5; k++) {
				/* Below the counter's step, only "less than one step" is known. */
				if (values[k] < l->resolution_ns)
					table_cellf(&t, "<%s", fmt_duration_ns(buf, sizeof(buf), l->resolution_ns));
				else
					table_cell(&t, fmt_duration_ns(buf, sizeof(buf), values[k]));
			}
			resolution = l->resolution_ns;
		}
	}
	fprintf(out, "\nper-call latency: %d single calls per path timed with the TSC (one step "
		"= %s), less the cost of timing an empty call\n", LATENCY_SAMPLES,
		fmt_duration_ns(buf, sizeof(buf), resolution));
	table_print(&t, out, NULL);
	table_free(&t);
}

/* What the vDSO column measures on this build, for the text and the JSON. */
static const char *vdso_column_note(void)
{
	if (raw_vdso_is_bare(VDSOKIT_FN_CLOCK_GETTIME))
		return "the bare vDSO entry point called from the loop (getrandom and the thread "
		       "pointer: vdsokit_*_via(VDSOKIT_ROUTE_VDSO))";
	return "vdsokit_*_via(VDSOKIT_ROUTE_VDSO): this architecture's vDSO needs the library's "
	       "call sequence (powerpc: errors in CR0.SO, ELFv1 function descriptors)";
}

/*
 * getcpu's rows each have their like: the references ask for the node
 * exactly when the library's call does (the vDSO column's entry with or
 * without a node pointer, sched_getcpu() or getcpu(3)).
 */
static void print_getcpu_references(FILE *out, const struct bench_run *run)
{
	for (unsigned i = 0; i < run->row_count; i++) {
		const struct bench_row *row = &run->rows[i];
		if (row->c.func != VDSOKIT_FN_GETCPU)
			continue;
		bool node = row->c.arg == BENCH_GETCPU_NODE;
		fprintf(out, "%s: %s %s, %s %s, %s %s\n", row->c.label, bench_path_title(BENCH_LIBRARY),
			node ? "vdsokit_getcpu(&cpu, &node)" : "vdsokit_getcpu(&cpu, NULL)",
			bench_path_title(BENCH_VDSO),
			!raw_vdso_is_bare(VDSOKIT_FN_GETCPU) ? "through vdsokit_getcpu_via" :
			node ? "__vdso_getcpu(&cpu, &node, NULL)" : "__vdso_getcpu(&cpu, NULL, NULL)",
			bench_path_title(BENCH_LIBC), node ? "getcpu(&cpu, &node)" : "sched_getcpu()");
	}
}

static void print_text(FILE *out, const struct bench_run *run, bool detail)
{
	const char *const headers[] = {
		"function/clock", "route", bench_path_title(BENCH_LIBRARY), bench_path_title(BENCH_VDSO),
		bench_path_title(BENCH_LIBC), bench_path_title(BENCH_SYSCALL), "speedup",
	};
	static const enum table_align align[] = {
		TABLE_LEFT, TABLE_LEFT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT,
		TABLE_RIGHT,
	};
	struct table t;
	char buf[32];
	int refused = 0;

	print_header(out, run);
	table_init(&t, 7, headers, align);
	for (unsigned i = 0; i < run->row_count; i++) {
		const struct bench_row *row = &run->rows[i];
		table_row(&t);
		table_cell(&t, row->c.label);
		table_cell(&t, route_label(row));
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
			const struct bench_result *r = &row->r[p];
			if (r->refused)
				refused = r->refused;
			table_cell(&t, !r->available ? "absent" : r->refused ?
				   errno_name(-r->refused) :
				   fmt_duration_ns(buf, sizeof(buf), r->median_ns));
		}
		table_cell(&t, fmt_ratio(buf, sizeof(buf), speedup(row)));
	}
	fprintf(out, "ns per call, median of batch means; speedup = syscall / libvdsokit\n");
	table_print(&t, out, NULL);
	table_free(&t);
	if (refused)
		fprintf(out, "%s (or another error in its place): every call of that path failed "
			"with it here, refused (e.g. by a seccomp filter): not timed, no speedup\n",
			errno_name(-refused));
	fprintf(out, "%s: %s\n", bench_path_title(BENCH_VDSO), vdso_column_note());
	print_getcpu_references(out, run);

	if (run->check_count) {
		fprintf(out, "\ncross-check, best of %d plain loops of clock_gettime(MONOTONIC):",
			CROSSCHECK_LOOPS);
		for (unsigned i = 0; i < run->check_count; i++) {
			const struct crosscheck *k = &run->checks[i];
			fprintf(out, "%s %s %s (batches %+.1f %%)", i ? "," : "",
				bench_path_title(k->path), fmt_duration_ns(buf, sizeof(buf), k->plain_ns),
				k->difference_pct);
		}
		fputc('\n', out);
	}

	if (run->latency)
		print_latency(out, run);
	if (!detail)
		return;
	static const char *const detail_headers[] = {
		"function/clock", "path", "median", "min", "p90", "calls", "batches", "returns",
	};
	static const enum table_align detail_align[] = {
		TABLE_LEFT, TABLE_LEFT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT,
		TABLE_RIGHT, TABLE_RIGHT,
	};
	table_init(&t, 8, detail_headers, detail_align);
	for (unsigned i = 0; i < run->row_count; i++) {
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
			const struct bench_result *r = &run->rows[i].r[p];
			table_row(&t);
			table_cell(&t, p == 0 ? run->rows[i].c.label : "");
			table_cell(&t, bench_path_title(p));
			table_cell(&t, fmt_duration_ns(buf, sizeof(buf), r->median_ns));
			table_cell(&t, fmt_duration_ns(buf, sizeof(buf), r->min_ns));
			table_cell(&t, fmt_duration_ns(buf, sizeof(buf), r->p90_ns));
			table_cellf(&t, "%llu", (unsigned long long)r->calls);
			table_cellf(&t, "%u", r->batches);
			table_cell(&t, result_text(buf, sizeof(buf), r));
		}
	}
	fputc('\n', out);
	table_print(&t, out, NULL);
	table_free(&t);
}

static void json_stats(struct json_writer *w, const struct bench_result *r,
		       const struct latency_result *latency)
{
	json_object_begin(w);
	json_kv_bool(w, "available", r->available);
	if (r->available) {
		json_kv_int(w, "result", r->first_result);
		/* Refused: the error, and null for every figure (none was measured). */
		json_kv_string(w, "error", r->refused ? errno_name(-r->refused) : NULL);
		json_kv_double(w, "median_ns", r->median_ns);
		json_kv_double(w, "min_ns", r->min_ns);
		json_kv_double(w, "p90_ns", r->p90_ns);
		json_kv_double(w, "mean_ns", r->mean_ns);
		if (r->refused) {
			json_key(w, "calls");
			json_null(w);
			json_key(w, "batches");
			json_null(w);
			json_key(w, "calls_per_batch");
			json_null(w);
		} else {
			json_kv_uint(w, "calls", r->calls);
			json_kv_uint(w, "batches", r->batches);
			json_kv_uint(w, "calls_per_batch", r->calls_per_batch);
		}
	}
	if (latency && latency->available) {
		json_key(w, "latency");
		json_object_begin(w);
		json_kv_uint(w, "samples", latency->samples);
		json_kv_double(w, "p50_ns", latency->p50_ns);
		json_kv_double(w, "p90_ns", latency->p90_ns);
		json_kv_double(w, "p99_ns", latency->p99_ns);
		json_kv_double(w, "p999_ns", latency->p999_ns);
		json_kv_double(w, "max_ns", latency->max_ns);
		json_kv_double(w, "resolution_ns", latency->resolution_ns);
		json_object_end(w);
	}
	json_object_end(w);
}

static void print_json(FILE *out, const struct bench_run *run)
{
	struct json_writer w;
	char clock[32];

	json_document_begin(&w, out, "bench");
	json_host(&w, &run->host, run->init_result);
	json_key(&w, "method");
	json_object_begin(&w);
	json_kv_string(&w, "statistic", "median, min and p90 of batch means");
	json_kv_double(&w, "budget_s", run->budget_s);
	json_kv_double(&w, "elapsed_s", run->elapsed_s);
	json_kv_double(&w, "batch_target_ns", run->batch_ns);
	json_kv_uint(&w, "max_batches", run->config.max_batches);
	json_kv_uint(&w, "min_batches", run->config.min_batches);
	json_kv_bool(&w, "interleaved", true);
	json_kv_string(&w, "vdso_column", vdso_column_note());
	json_key(&w, "cpu");
	if (run->cpu >= 0)
		json_int(&w, run->cpu);
	else
		json_null(&w);
	json_object_end(&w);

	json_key(&w, "floor");
	json_stats(&w, &run->floor, NULL);

	json_key(&w, "results");
	json_array_begin(&w);
	for (unsigned i = 0; i < run->row_count; i++) {
		const struct bench_row *row = &run->rows[i];
		bool has_clock = row->c.func == VDSOKIT_FN_CLOCK_GETTIME ||
				 row->c.func == VDSOKIT_FN_CLOCK_GETRES;
		json_object_begin(&w);
		json_kv_string(&w, "label", row->c.label);
		json_kv_string(&w, "function", cli_func_name(row->c.func));
		if (has_clock) {
			json_kv_int(&w, "clock", row->c.arg);
			json_kv_string(&w, "clock_name", clock_id_name(clock, sizeof(clock), row->c.arg));
		}
		if (row->c.func == VDSOKIT_FN_GETRANDOM)
			json_kv_int(&w, "length", row->c.arg);
		if (row->c.func == VDSOKIT_FN_GETCPU)
			json_kv_bool(&w, "node", row->c.arg == BENCH_GETCPU_NODE);
		if (row->route_known)
			json_route_members(&w, &row->route, row->r[BENCH_LIBRARY].refused);
		json_kv_double(&w, "speedup", speedup(row));
		json_kv_string(&w, "vdso_call", raw_vdso_is_bare(row->c.func) ? "bare pointer" :
			       "vdsokit_via");
		json_key(&w, "paths");
		json_object_begin(&w);
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
			json_key(&w, bench_path_name(p));
			json_stats(&w, &row->r[p], run->latency ? &row->latency[p] : NULL);
		}
		json_object_end(&w);
		json_object_end(&w);
	}
	json_array_end(&w);

	json_key(&w, "crosscheck");
	json_array_begin(&w);
	for (unsigned i = 0; i < run->check_count; i++) {
		const struct crosscheck *k = &run->checks[i];
		json_object_begin(&w);
		json_kv_string(&w, "label", k->row->c.label);
		json_kv_string(&w, "path", bench_path_name(k->path));
		json_kv_uint(&w, "plain_loop_calls", k->calls);
		json_kv_uint(&w, "plain_loops", CROSSCHECK_LOOPS);
		json_kv_string(&w, "plain_loop_statistic", "min");
		json_kv_double(&w, "plain_loop_ns", k->plain_ns);
		json_kv_double(&w, "median_ns", k->median_ns);
		json_kv_double(&w, "difference_pct", k->difference_pct);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_document_end(&w);
}

static void csv_number(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, ",%.6g", v);
	else
		fputs(",", out);
}

static void print_csv(FILE *out, const struct bench_run *run)
{
	fputs("label,function,arg,route,path,available,median_ns,min_ns,p90_ns,mean_ns,"
	      "calls,batches,result\n", out);
	for (unsigned i = 0; i < run->row_count; i++) {
		const struct bench_row *row = &run->rows[i];
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
			const struct bench_result *r = &row->r[p];
			/* Labels hold no comma or quote: "clock_gettime(MONOTONIC)". */
			fprintf(out, "%s,%s,%ld,%s,%s,%d", row->c.label, cli_func_name(row->c.func),
				row->c.arg, route_label(row), bench_path_name(p), r->available);
			csv_number(out, r->median_ns);
			csv_number(out, r->min_ns);
			csv_number(out, r->p90_ns);
			csv_number(out, r->mean_ns);
			fprintf(out, ",%llu,%u,%ld\n", (unsigned long long)r->calls, r->batches,
				r->first_result);
		}
	}
}

static int write_svg(struct cli_output_file *file, const struct bench_run *run)
{
	const char *groups[MAX_CASES];
	double values[MAX_CASES * BENCH_PATH_COUNT];
	char subtitle[256];

	for (unsigned i = 0; i < run->row_count; i++) {
		groups[i] = run->rows[i].c.label;
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			values[i * BENCH_PATH_COUNT + p] =
				run->rows[i].r[p].available ? run->rows[i].r[p].median_ns : NAN;
	}
	snprintf(subtitle, sizeof(subtitle),
		 "Linux %s, clocksource %s; median of batch means; floor %.2f ns",
		 host_kernel_text(&run->host),
		 fact_text(&run->host.clocksource),
		 run->floor.median_ns);
	struct bar_chart chart = {
		.title = "vdsokit bench: ns per call by path",
		.subtitle = subtitle,
		.axis_label = "ns per call (log scale)",
		.series_count = BENCH_PATH_COUNT,
		.group_count = run->row_count,
		.groups = groups,
		.values = values,
	};
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		chart.series[p] = bench_path_title(p);

	return svg_write_chart_file(file, &chart);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_options o;
	int status = parse_options(argc, argv, &o);
	if (status)
		return status < 0 ? CLI_EXIT_OK : status;

	/*
	 * A path that cannot be written is found before seconds of measuring;
	 * the file itself (a temporary) is opened only after them, so that an
	 * interrupted hour of measuring leaves nothing behind.
	 */
	if (o.svg_path && (status = cli_output_check("bench", o.svg_path)) != 0)
		return status;

	/* A few KiB of results: static, not on the stack. */
	static struct bench_run run;
	memset(&run, 0, sizeof(run));
	status = measure(&run, &o);
	if (status)
		return status;
	struct cli_output_file svg;
	if (o.svg_path && (status = cli_output_open(&svg, "bench", o.svg_path)) != 0)
		return status;

	/* The chart first: a failed write must leave no JSON or CSV behind (docs/json.md). */
	if (o.svg_path && (status = write_svg(&svg, &run)) != 0)
		return status;
	if (o.svg_path && svg.to_stdout)
		return CLI_EXIT_OK;   /* stdout holds the chart, and only the chart */
	if (o.json)
		print_json(stdout, &run);
	else if (o.csv)
		print_csv(stdout, &run);
	else
		print_text(stdout, &run, o.detail);
	return CLI_EXIT_OK;
}
