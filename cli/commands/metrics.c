/* SPDX-License-Identifier: MIT */
/*
 * vdsokit metrics: what report measures and doctor finds, in the Prometheus
 * text exposition format, for node_exporter's textfile collector: so that a
 * fleet's monitoring can alert on the hosts whose clock calls left the fast
 * path (a clocksource fallen back to hpet, acpi_pm or xen).
 *
 * A command of its own rather than `report --prometheus`: it runs doctor's
 * checks as well as report's benchmark, takes -o and --time that report
 * has no use for, and exits 0 once the file is written, whatever the host's
 * state (doctor exits 1 on a slow host: a timer that runs it would fail
 * every time on exactly the hosts it is there to watch).
 *
 * Every sample is a measured fact: a call that failed (refused by a seccomp
 * filter …) has no duration sample, but vdsokit_call_failed 1 with the
 * error; a fact that could not be read (the clocksource of a container
 * that masks /sys) has no info sample, and doctor's `unreadable` finding
 * says so.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "checks/doctor.h"
#include "commands/commands.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"

static const char usage[] =
	"Usage: vdsokit metrics [-o FILE] [--time SECONDS]\n"
	"\n"
	"Writes the Prometheus text exposition format, for node_exporter's textfile\n"
	"collector (docs/metrics.md): the kernel and architecture, the clocksource,\n"
	"whether each function and clock runs in user space, the seconds per call\n"
	"of report's benchmark through libvdsokit and through the syscall (a call\n"
	"that fails gets vdsokit_call_failed 1 and no duration), and doctor's\n"
	"findings by id and severity.  Exit status 0 once written, whatever the\n"
	"findings; 2 for a usage error or a file that cannot be written.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  write to FILE (`-`: stdout, the default), replacing it\n"
	"                     only once every line is written (vdsokit(1), OUTPUT\n"
	"                     FILES): name it *.prom in the collector's directory\n"
	"  --time SECONDS     how long the measurements take, default 0.5 (at least\n"
	"                     31 batches per call and path are always taken)\n"
	"  -h, --help         this help\n";

#define DEFAULT_SECONDS 0.5
/* Of --time: report's benchmark, the rest doctor's clocksource read. */
#define BENCH_SHARE (2.0 / 3.0)

/* "# HELP" and "# TYPE": every sample of the family follows, none elsewhere. */
static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * One sample: name{key="value",…} value.  The labels come in pairs ended
 * by a NULL key; a NULL or empty value leaves its label out (Prometheus
 * reads an empty label as an absent one).
 */
static void sample(FILE *out, double value, const char *name, ...)
{
	va_list ap;
	bool first = true;
	fputs(name, out);
	va_start(ap, name);
	for (const char *key; (key = va_arg(ap, const char *));) {
		const char *v = va_arg(ap, const char *);
		if (!v || !v[0])
			continue;
		fprintf(out, "%s%s=\"", first ? "{" : ",", key);
		text_write(out, v, TEXT_PROMETHEUS);
		fputc('"', out);
		first = false;
	}
	va_end(ap);
	if (!first)
		fputc('}', out);
	/* Counts and flags as integers; durations with the 6 digits a median has. */
	if (value == floor(value) && fabs(value) < 9007199254740992.0)
		fprintf(out, " %.0f\n", value);
	else
		fprintf(out, " %.6g\n", value);
}

static void write_host(FILE *out, const struct host_facts *h, int init_result)
{
	family(out, "vdsokit_build_info", "gauge",
	       "The vdsokit that wrote these metrics: its version and the architecture it was "
	       "built for.");
	sample(out, 1, "vdsokit_build_info", "version", VDSOKIT_VERSION_STRING,
	       "arch", vdsokit_arch_name(), (const char *)NULL);
	family(out, "vdsokit_host_info", "gauge",
	       "The kernel (uname -r) and the machine (uname -m) measured.");
	/* uname refused: the label says unknown, the reason is on the text outputs. */
	sample(out, 1, "vdsokit_host_info", "kernel_release",
	       h->uname.known ? h->kernel_release : "unknown", "machine",
	       h->uname.known ? h->machine : "unknown", (const char *)NULL);
	family(out, "vdsokit_vdso_usable", "gauge",
	       "1 when a vDSO is mapped and libvdsokit accepted it, else 0 (every call is a "
	       "syscall; doctor's no-vdso or bad-image finding says why).");
	sample(out, init_result == 0 && vdsokit_process_image() ? 1 : 0, "vdsokit_vdso_usable",
	       (const char *)NULL);
	/* Unknown: no sample (doctor's `unreadable` finding names the reason). */
	family(out, "vdsokit_clocksource_info", "gauge",
	       "The current clocksource (sysfs) and the available ones; no sample when they "
	       "cannot be read.");
	if (h->clocksource.known)
		sample(out, 1, "vdsokit_clocksource_info", "clocksource", h->clocksource.text,
		       "available", h->available_clocksources.known ?
		       h->available_clocksources.text : NULL, (const char *)NULL);
}

/* The route runs without entering the kernel: the vDSO in user space, a register, rseq. */
static bool route_in_user_space(enum vdsokit_route route)
{
	return route == VDSOKIT_ROUTE_VDSO || route == VDSOKIT_ROUTE_REGISTER ||
	       route == VDSOKIT_ROUTE_RSEQ;
}

static void write_routes(FILE *out)
{
	char clock[32];
	family(out, "vdsokit_route_user_space", "gauge",
	       "1 when libvdsokit serves the function (and clock) without entering the "
	       "kernel, 0 when it makes a syscall; route is libvdsokit's path (vdso, "
	       "vdso-kernel, syscall, register, rseq, none).  A vDSO that falls back to the "
	       "syscall inside (clocksource hpet, acpi_pm) shows in the durations and in "
	       "doctor's clocksource-fallback finding.");
	/* report's routes, as its text and JSON list them. */
	static struct report_route routes[REPORT_ROUTES_MAX];
	unsigned count = report_routes(routes, NULL);
	for (unsigned i = 0; i < count; i++) {
		const struct report_route *r = &routes[i];
		sample(out, route_in_user_space(r->info.route), "vdsokit_route_user_space",
		       "function", cli_func_name(r->fn),
		       "clock", r->per_clock ? clock_id_name(clock, sizeof(clock), r->clock) : NULL,
		       "route", vdsokit_route_name(r->info.route), (const char *)NULL);
	}
}

static const enum bench_path measured_paths[] = { BENCH_LIBRARY, BENCH_SYSCALL };
#define MEASURED_PATHS (sizeof(measured_paths) / sizeof(measured_paths[0]))

/* The clock of a clock_gettime case, by name; NULL for the others. */
static const char *case_clock(const struct bench_case *c, char *buf, size_t size)
{
	if (c->func != VDSOKIT_FN_CLOCK_GETTIME && c->func != VDSOKIT_FN_CLOCK_GETRES)
		return NULL;
	return clock_id_name(buf, size, c->arg);
}

static void write_durations(FILE *out, const struct quick_row *rows)
{
	char clock[32];
	family(out, "vdsokit_call_duration_seconds", "gauge",
	       "Seconds per call, the median of batch means, through libvdsokit "
	       "(path=\"vdsokit\") and the raw syscall (path=\"syscall\"); only calls that "
	       "succeeded are timed.");
	for (unsigned i = 0; i < QUICK_COUNT; i++)
		for (unsigned k = 0; k < MEASURED_PATHS; k++) {
			const struct bench_result *r = &rows[i].r[measured_paths[k]];
			if (!r->available || r->refused || !isfinite(r->median_ns))
				continue;
			sample(out, r->median_ns * 1e-9, "vdsokit_call_duration_seconds",
			       "call", rows[i].c.label, "function", cli_func_name(rows[i].c.func),
			       "clock", case_clock(&rows[i].c, clock, sizeof(clock)),
			       "path", bench_path_name(measured_paths[k]), (const char *)NULL);
		}

	family(out, "vdsokit_call_failed", "gauge",
	       "1 when the call failed here (error: EPERM, ENOSYS, ... from a seccomp filter or "
	       "sandbox), so it has no duration; 0 when it succeeded and was timed.");
	for (unsigned i = 0; i < QUICK_COUNT; i++)
		for (unsigned k = 0; k < MEASURED_PATHS; k++) {
			const struct bench_result *r = &rows[i].r[measured_paths[k]];
			/* A path this machine does not have is no failure: no sample. */
			if (!r->available)
				continue;
			sample(out, r->refused != 0, "vdsokit_call_failed",
			       "call", rows[i].c.label, "function", cli_func_name(rows[i].c.func),
			       "clock", case_clock(&rows[i].c, clock, sizeof(clock)),
			       "path", bench_path_name(measured_paths[k]),
			       "error", r->refused ? errno_name(-r->refused) : NULL, (const char *)NULL);
		}
}

static void write_findings(FILE *out, const struct doctor_report *r)
{
	family(out, "vdsokit_doctor_findings", "gauge",
	       "How many findings `vdsokit doctor` made, by severity: slow is a call off its "
	       "fast path, warning a fact that may hide one.");
	for (unsigned s = 0; s < DOCTOR_SEVERITY_COUNT; s++) {
		unsigned n = 0;
		for (unsigned i = 0; i < r->count; i++)
			n += r->findings[i].severity == s;
		sample(out, n, "vdsokit_doctor_findings",
		       "severity", doctor_severity_name((enum doctor_severity)s), (const char *)NULL);
	}

	family(out, "vdsokit_doctor_finding", "gauge",
	       "One series per finding of `vdsokit doctor` (id as in doctor --json), with its "
	       "severity.");
	for (unsigned i = 0; i < r->count; i++) {
		const struct doctor_finding *f = &r->findings[i];
		bool seen = false;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = r->findings[j].severity == f->severity &&
			       strcmp(r->findings[j].id, f->id) == 0;
		if (seen)
			continue;   /* counted with the first: one series per id and severity */
		unsigned n = 0;
		for (unsigned j = i; j < r->count; j++)
			n += r->findings[j].severity == f->severity &&
			     strcmp(r->findings[j].id, f->id) == 0;
		sample(out, n, "vdsokit_doctor_finding", "id", f->id,
		       "severity", doctor_severity_name(f->severity), (const char *)NULL);
	}
}

static void write_metrics(FILE *out, const struct host_facts *h, int init_result,
			  const struct quick_row *rows, const struct doctor_report *r,
			  time_t written)
{
	write_host(out, h, init_result);
	write_routes(out);
	write_durations(out, rows);
	write_findings(out, r);
	/* The textfile collector refuses timestamps on samples: the time is a gauge. */
	family(out, "vdsokit_last_run_timestamp_seconds", "gauge",
	       "When these metrics were measured, in seconds since the epoch: alert when it "
	       "grows old.");
	sample(out, (double)written, "vdsokit_last_run_timestamp_seconds", (const char *)NULL);
}

int cmd_metrics(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "time", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = "-";
	double seconds = DEFAULT_SECONDS;
	int c;
	while ((c = cli_getopt(argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 't':
			if (!cli_parse_double("metrics", "--time", optarg, 0, 3600, &seconds))
				return CLI_EXIT_USAGE;
			break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("metrics", "unexpected argument '%s'", argv[optind]);

	/* A file that cannot be written is said before the measuring, not after it. */
	int checked = cli_output_check("metrics", output);
	if (checked)
		return checked;

	int init_result = vdsokit_init();
	struct host_facts h;
	host_facts_read(&h);
	static struct quick_row rows[QUICK_COUNT];
	report_quick_rows(rows);
	report_quick_measure(rows, seconds * BENCH_SHARE);
	static struct doctor_report findings;
	doctor_examine(&findings, &h, init_result, seconds * (1 - BENCH_SHARE));
	/* The library's clock, not the C library's, which a preloaded object can replace. */
	int64_t now;
	time_t written = vdsokit_time(&now) == 0 ? (time_t)now : time(NULL);

	/* Opened once everything is measured: the old file stays whole meanwhile. */
	struct cli_output_file file;
	int status = cli_output_open(&file, "metrics", output);
	if (status)
		return status;
	write_metrics(file.stream, &h, init_result, rows, &findings, written);
	return cli_output_commit(&file);
}
