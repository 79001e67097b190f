/* SPDX-License-Identifier: MIT */
/*
 * vdsokit report (the default command): one screen that tells someone who
 * has never heard of AT_SYSINFO_EHDR what the vDSO does on this machine:
 * the kernel, the clocksource, whether a vDSO is there, how each call is
 * served, and how much faster than the syscall that makes it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"
#include "images/images.h"

static const char usage[] =
	"Usage: vdsokit report [--json] [--no-bench]\n"
	"\n"
	"One screen about this machine's vDSO: kernel release, architecture,\n"
	"clocksource, whether a vDSO is mapped (and if not, the likely reason),\n"
	"how libvdsokit serves each function (vDSO in user space, vDSO that enters\n"
	"the kernel, or the syscall), and a short benchmark (under a second) of\n"
	"libvdsokit against the raw syscall.  `vdsokit bench` measures everything.\n"
	"\n"
	"Options:\n"
	"  --json      JSON on stdout (docs/json.md, schema vdsokit-report)\n"
	"  --no-bench  leave out the benchmark\n"
	"  -h, --help  this help\n";

#define REPORT_BUDGET_S 0.4

/* Route as words for people, not enum names. */
static const char *route_words(enum vdsokit_route route)
{
	switch (route) {
	case VDSOKIT_ROUTE_VDSO: return "vDSO (user space)";
	case VDSOKIT_ROUTE_VDSO_KERNEL: return "vDSO -> kernel";
	case VDSOKIT_ROUTE_SYSCALL: return "syscall";
	case VDSOKIT_ROUTE_REGISTER: return "CPU register";
	case VDSOKIT_ROUTE_NONE: return "not available";
	case VDSOKIT_ROUTE_RSEQ: return "rseq area";
	case VDSOKIT_ROUTE_AUTO: break; /* never an answer */
	}
	return "?";
}

#define ROUTE_PREFIX "  %-15s %-18s "
#define ROUTE_PREFIX_WIDTH 37
#define SCREEN_WIDTH 79
#define VALUE_COLUMN 16

/* text, its words wrapped at the screen's width: it starts at column, later lines at indent. */
static void print_wrapped(const char *text, size_t column, size_t indent)
{
	for (bool first = true; *text; first = false) {
		size_t word = strcspn(text, " ");
		if (!first && column + 1 + word > SCREEN_WIDTH) {
			printf("\n%*s", (int)indent, "");
			column = indent;
		} else if (!first) {
			putchar(' ');
			column++;
		}
		printf("%.*s", (int)word, text);
		column += word;
		text += word;
		text += strspn(text, " ");
	}
	putchar('\n');
}

/* Why no vDSO serves the calls, in the terms an operator can act on (doctor's reasons). */
static void print_no_vdso(const struct host_facts *h, int init_result)
{
	char text[320];
	if (h->auxv_sysinfo_ehdr == 0) {
		struct doctor_env env;
		doctor_env_read(&env, h);
		snprintf(text, sizeof(text), "none: no AT_SYSINFO_EHDR reached the program; likely reason: %s",
			 no_vdso_reason_text(no_vdso_reason_of(&env)));
	} else {
		snprintf(text, sizeof(text), "none usable: %s",
			 init_result == -ENOEXEC ? "an image is mapped but libvdsokit rejected it as malformed"
						 : "libvdsokit could not use the mapped image");
	}
	printf("  vDSO          ");
	print_wrapped(text, VALUE_COLUMN, VALUE_COLUMN);
}

/* Prints the clock names whose `fn` takes `route`, wrapped under the prefix. */
static bool print_clocks_with_route(const struct report_route *routes, unsigned count,
				    enum vdsokit_func fn, enum vdsokit_route route, bool first)
{
	char names[REPORT_CLOCK_IDS * 32] = "", name[32];
	size_t len = 0;
	for (unsigned i = 0; i < count && len < sizeof(names); i++) {
		if (routes[i].fn != fn || routes[i].info.route != route)
			continue;
		clock_id_name(name, sizeof(name), routes[i].clock);
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", len ? " " : "", name);
	}
	if (!names[0])
		return first;
	printf(ROUTE_PREFIX, first ? cli_func_name(fn) : "", route_words(route));
	print_wrapped(names, ROUTE_PREFIX_WIDTH, ROUTE_PREFIX_WIDTH);
	return false;
}

/* The route of fn (for clock, if per clock), NULL when the library names none. */
static const struct report_route *find_route(const struct report_route *routes, unsigned count,
					     enum vdsokit_func fn, long clock)
{
	for (unsigned i = 0; i < count; i++)
		if (routes[i].fn == fn && (!routes[i].per_clock || routes[i].clock == clock))
			return &routes[i];
	return NULL;
}

/* Usually clock_getres takes the same route per clock: say so in one line. */
static bool same_routes_as_gettime(const struct report_route *routes, unsigned count)
{
	for (long clock = 0; clock < REPORT_CLOCK_IDS; clock++) {
		const struct report_route *a = find_route(routes, count, VDSOKIT_FN_CLOCK_GETTIME, clock);
		const struct report_route *b = find_route(routes, count, VDSOKIT_FN_CLOCK_GETRES, clock);
		if (!a || !b || a->info.route != b->info.route)
			return false;
	}
	return true;
}

static void print_routes(const struct report_route *routes, unsigned count)
{
	printf("\nHow libvdsokit serves each call:\n");
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		const struct report_route *r = find_route(routes, count, fn, CLOCK_REALTIME);
		if (!r)
			continue;
		if (fn == VDSOKIT_FN_CLOCK_GETRES && same_routes_as_gettime(routes, count)) {
			printf("  %-15s as clock_gettime\n", cli_func_name(fn));
			continue;
		}
		if (r->per_clock) {
			/* Per clock, grouped by route. */
			bool first = true;
			for (unsigned route = 0; route <= VDSOKIT_ROUTE_NONE; route++)
				first = print_clocks_with_route(routes, count, fn, route, first);
			continue;
		}
		/* rseq: its symbol is the node's fallback; the reason says so. */
		const struct vdsokit_route_info *p = &r->info;
		bool show_symbol = p->symbol && p->route != VDSOKIT_ROUTE_RSEQ;
		char text[256];
		if (r->refused)
			/* What was measured overrides the route the library names. */
			snprintf(text, sizeof(text), "%s%sfails here: %s", show_symbol ? p->symbol : "",
				 show_symbol ? ", but " : "", errno_name(-r->refused));
		else
			snprintf(text, sizeof(text), "%s", show_symbol ? p->symbol : cli_reason_text(p->reason));
		printf(ROUTE_PREFIX, cli_func_name(fn), route_words(p->route));
		print_wrapped(text, ROUTE_PREFIX_WIDTH, ROUTE_PREFIX_WIDTH);
	}
}

/* syscall / library, NaN unless both were timed. */
static double quick_speedup(const struct quick_row *row)
{
	const struct bench_result *lib = &row->r[BENCH_LIBRARY], *sys = &row->r[BENCH_SYSCALL];
	if (lib->refused || sys->refused)
		return NAN;
	return sys->median_ns / lib->median_ns;
}

static void print_quick_bench(const struct quick_row *rows)
{
	static const char *const headers[] = { "call", "libvdsokit", "syscall", "speedup" };
	struct table t;
	char buf[32];
	int refused = 0;

	table_init(&t, 4, headers, NULL);
	for (unsigned i = 0; i < QUICK_COUNT; i++) {
		const struct bench_result *lib = &rows[i].r[BENCH_LIBRARY];
		const struct bench_result *sys = &rows[i].r[BENCH_SYSCALL];
		table_row(&t);
		table_cell(&t, rows[i].c.label);
		/* A refused call has no figure: its error stands in the cell. */
		table_cell(&t, lib->refused ? errno_name(-lib->refused) :
			   fmt_duration_ns(buf, sizeof(buf), lib->median_ns));
		table_cell(&t, sys->refused ? errno_name(-sys->refused) :
			   fmt_duration_ns(buf, sizeof(buf), sys->median_ns));
		table_cell(&t, fmt_ratio(buf, sizeof(buf), quick_speedup(&rows[i])));
		if (lib->refused || sys->refused)
			refused = lib->refused ? lib->refused : sys->refused;
	}
	printf("\nSpeed, ns per call (median of batch means; `vdsokit bench` for all):\n");
	table_print(&t, stdout, "  ");
	table_free(&t);
	if (refused)
		printf("  %s (or another error in its place): the call failed with it here, refused "
		       "(e.g. by a\n  seccomp filter): not timed, no speedup\n", errno_name(-refused));
}

/*
 * The verdict, decided once for the text and the JSON: from clock_gettime
 * (MONOTONIC)'s short bench.  A clocksource with a vDSO read is ~10× faster
 * than the syscall; one without is ~1×.
 */
enum verdict_kind { VERDICT_NONE, VERDICT_NO_VDSO, VERDICT_NOT_MEASURED, VERDICT_USER_SPACE,
		    VERDICT_LIKE_SYSCALL };
static const char *const verdict_ids[] = {
	[VERDICT_NONE] = NULL, [VERDICT_NO_VDSO] = "no-vdso",
	[VERDICT_NOT_MEASURED] = "not-measured", [VERDICT_USER_SPACE] = "user-space",
	[VERDICT_LIKE_SYSCALL] = "like-syscall",
};
struct report_verdict {
	enum verdict_kind kind;
	double speedup;         /* syscall / libvdsokit; NAN when not measured */
	const char *failed_by;  /* not measured: "libvdsokit" or "the syscall" */
	int refused;            /* not measured: its negative errno, 0 if none */
};

static struct report_verdict verdict_of(const struct quick_row *rows, bool benched, bool have_vdso)
{
	struct report_verdict v = { VERDICT_NONE, NAN, NULL, 0 };
	if (!benched)
		return v;
	if (!have_vdso) {
		v.kind = VERDICT_NO_VDSO;
		return v;
	}
	const struct quick_row *mono = &rows[1];
	v.speedup = quick_speedup(mono);
	if (!isfinite(v.speedup)) {
		bool by_library = mono->r[BENCH_LIBRARY].refused != 0;
		v.kind = VERDICT_NOT_MEASURED;
		v.failed_by = by_library ? "libvdsokit" : "the syscall";
		v.refused = mono->r[by_library ? BENCH_LIBRARY : BENCH_SYSCALL].refused;
		return v;
	}
	v.kind = v.speedup >= 2 ? VERDICT_USER_SPACE : VERDICT_LIKE_SYSCALL;
	return v;
}

static void print_verdict(const struct host_facts *h, const struct report_verdict *v)
{
	char text[320];
	switch (v->kind) {
	case VERDICT_NONE:
		return;
	case VERDICT_NO_VDSO:
		snprintf(text, sizeof(text), "Verdict: no vDSO here, so every time call is a syscall.");
		break;
	case VERDICT_NOT_MEASURED:
		if (!v->refused)
			return;
		snprintf(text, sizeof(text), "Verdict: not measured: clock_gettime(MONOTONIC) through %s "
			 "fails here with %s.", v->failed_by, errno_name(-v->refused));
		break;
	case VERDICT_USER_SPACE:
		snprintf(text, sizeof(text), "Verdict: clock_gettime(MONOTONIC) runs in user space, %.0f%s "
			 "faster than the syscall.", v->speedup, cli_times_sign());
		break;
	case VERDICT_LIKE_SYSCALL:
		snprintf(text, sizeof(text), "Verdict: clock_gettime(MONOTONIC) costs about as much as the "
			 "syscall (%.1f%s): the vDSO is missing or falls back to the kernel (clocksource "
			 "%s?). Run `vdsokit doctor`.", v->speedup, cli_times_sign(), fact_text(&h->clocksource));
		break;
	default:
		return;
	}
	putchar('\n');
	print_wrapped(text, 0, 0);
}

static void report_json(const struct host_facts *h, int init_result,
			const struct report_route *routes, unsigned route_count,
			const struct quick_row *rows, bool benched, const struct report_verdict *v)
{
	struct json_writer w;
	char clock[32];

	json_document_begin(&w, stdout, "report");
	json_host(&w, h, init_result);
	json_key(&w, "routes");
	json_array_begin(&w);
	for (unsigned i = 0; i < route_count; i++) {
		const struct report_route *r = &routes[i];
		json_object_begin(&w);
		json_kv_string(&w, "function", cli_func_name(r->fn));
		if (r->per_clock) {
			json_kv_int(&w, "clock", r->clock);
			json_kv_string(&w, "clock_name", clock_id_name(clock, sizeof(clock), r->clock));
		}
		json_route_members(&w, &r->info, r->refused);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_key(&w, "bench");
	if (!benched) {
		json_null(&w);
	} else {
		json_array_begin(&w);
		for (unsigned i = 0; i < QUICK_COUNT; i++) {
			const struct bench_result *lib = &rows[i].r[BENCH_LIBRARY];
			const struct bench_result *sys = &rows[i].r[BENCH_SYSCALL];
			json_object_begin(&w);
			json_kv_string(&w, "label", rows[i].c.label);
			/* NaN (null) for a refused call: nothing was timed. */
			json_kv_double(&w, "vdsokit_ns", lib->median_ns);
			json_kv_double(&w, "syscall_ns", sys->median_ns);
			json_kv_double(&w, "speedup", quick_speedup(&rows[i]));
			json_kv_string(&w, "vdsokit_error", lib->refused ? errno_name(-lib->refused) :
				       NULL);
			json_kv_string(&w, "syscall_error", sys->refused ? errno_name(-sys->refused) :
				       NULL);
			json_object_end(&w);
		}
		json_array_end(&w);
	}
	json_key(&w, "verdict");
	if (v->kind == VERDICT_NONE) {
		json_null(&w);
	} else {
		json_object_begin(&w);
		json_kv_string(&w, "id", verdict_ids[v->kind]);
		json_kv_double(&w, "speedup", v->speedup);
		json_kv_string(&w, "error", v->refused ? errno_name(-v->refused) : NULL);
		json_object_end(&w);
	}
	json_document_end(&w);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "no-bench", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, bench = true;
	int c;
	while ((c = cli_getopt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'n': bench = false; break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("report", "unexpected argument '%s'", argv[optind]);

	int init_result = vdsokit_init();
	const struct vdsokit_image *img = vdsokit_process_image();
	struct host_facts h;
	host_facts_read(&h);

	static struct quick_row rows[QUICK_COUNT];
	report_quick_rows(rows);
	if (bench)
		report_quick_measure(rows, REPORT_BUDGET_S);
	static struct report_route routes[REPORT_ROUTES_MAX];
	unsigned route_count = report_routes(routes, bench ? rows : NULL);
	struct report_verdict verdict = verdict_of(rows, bench, img != NULL);
	if (json) {
		report_json(&h, init_result, routes, route_count, rows, bench, &verdict);
		return CLI_EXIT_OK;
	}

	printf("vdsokit report: the vDSO on this machine\n\n");
	printf("  kernel        Linux %s\n", h.uname.known ? h.kernel_release : fact_text(&h.uname));
	printf("  architecture  %s (libvdsokit built for %s)\n",
	       h.uname.known ? h.machine : fact_text(&h.uname), vdsokit_arch_name());
	/* The kernel's machine above; the process's ABI is the build's whatever uname says. */
	if (h.linux32_personality)
		printf("  personality   linux32 (setarch): uname -m says %s to this process, "
		       "whose ABI is still %s\n", h.personality_machine, vdsokit_arch_name());
	printf("  clocksource   %s%s%s%s\n", fact_text(&h.clocksource),
	       h.available_clocksources.known ? " (available: " : "", h.available_clocksources.text,
	       h.available_clocksources.known ? ")" : "");
	host_print_unknowns(stdout, &h, "  ");
	if (img) {
		unsigned served = 0;
		for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
			const struct report_route *r = find_route(routes, route_count, fn,
								  CLOCK_REALTIME);
			served += r && r->info.symbol;
		}
		char text[160];
		snprintf(text, sizeof(text), "mapped at %#lx, %zu bytes, %u symbols; serves %u of the %u "
			 "libvdsokit functions", (unsigned long)(uintptr_t)img->data, img->size,
			 img->symbol_count, served, (unsigned)VDSOKIT_FN_COUNT);
		printf("  vDSO          ");
		print_wrapped(text, VALUE_COLUMN, VALUE_COLUMN);
	} else {
		print_no_vdso(&h, init_result);
	}
	printf("\n  The vDSO is a small library the kernel maps into every process so that\n"
	       "  clock_gettime() and friends can run without entering the kernel.\n");
	print_routes(routes, route_count);
	if (bench)
		print_quick_bench(rows);
	print_verdict(&h, &verdict);
	return CLI_EXIT_OK;
}
