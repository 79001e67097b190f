/* SPDX-License-Identifier: MIT */
/*
 * vdsokit doctor: why a call is not on its fast path, with the evidence and
 * what to do about it.
 *
 * The causes, most common first: no vDSO at all (vdso=0, qemu-user,
 * valgrind), a clocksource the vDSO cannot read (hpet, acpi_pm: the vDSO
 * then makes the syscall itself, which only a measurement shows), a
 * function or clock this kernel or architecture serves in the kernel only.
 * The environment that changes the picture (seccomp, time namespaces,
 * 32-bit userspace, virtual machines) is reported alongside.
 *
 * The checks live in checks/doctor_*.c; this file holds their table, walks
 * it, and renders the one report they fill as text or JSON.
 */
#include <math.h>
#include <string.h>

#include "checks/doctor.h"
#include "commands/commands.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "images/images.h"

/* How long doctor measures the clocksource's vDSO read against the syscall. */
#define DOCTOR_MEASURE_S 0.3

/* A check's finding ids, for the table: the only ones it may add. */
#define IDS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/*
 * Every check, in the order the findings are shown: the vDSO first, then
 * what hides it, then what makes a call slow, then the surroundings.  The
 * ids are the JSON's findings[].id (docs/json.md); tests/cli-doctor.t
 * holds doctor's output and docs to this list.
 */
static const struct doctor_check doctor_checks[] = {
	{ doctor_check_vdso_image, IDS("vdso-image") },
	{ doctor_check_vdso_mapped, IDS("vdso") },
	{ doctor_check_vdso_rejected, IDS("bad-image") },
	{ doctor_check_no_vdso, IDS("no-vdso") },
	{ doctor_check_valgrind, IDS("valgrind") },
	{ doctor_check_qemu_user, IDS("qemu-user") },
	{ doctor_check_rr, IDS("rr") },
	{ doctor_check_clocksource,
	  IDS("clocksource", "clocksource-fallback", "clocksource-contradiction") },
	{ doctor_check_functions,
	  IDS("functions", "symbol-absent", "entry-is-syscall", "not-on-arch", "kernel-clocks",
	      "time32", "untrusted", "rseq-cpu-only", "vdso-kernel", "unavailable",
	      "no-state-memory", "fallback") },
	{ doctor_check_cputime, IDS("cputime-syscall") },
	{ doctor_check_vdso_stack, IDS("vdso-stack", "vdso-stack-deep") },
	{ doctor_check_failing_calls, IDS("calls-fail") },
	{ doctor_check_seccomp, IDS("seccomp") },
	{ doctor_check_time_namespace, IDS("time-namespace") },
	{ doctor_check_compat_32bit, IDS("compat-32bit") },
	{ doctor_check_virtual_machine, IDS("virtual-machine") },
	{ doctor_check_time32, IDS("no-time32-syscalls") },
	{ doctor_check_libc_clock, IDS("libc-clock-interposed") },
	{ doctor_check_unreadable, IDS("unreadable") },
};

void doctor_examine(struct doctor_report *r, const struct host_facts *host, int init_result,
		    double measure_s)
{
	memset(r, 0, sizeof(*r));
	r->host = host;
	r->init_result = init_result;
	r->image_file = cli_image_path();
	/* The facts first, so that every check and both renderers see the same ones. */
	doctor_env_read(&r->env, host);
	doctor_read_vdso(r);
	doctor_measure_clocksource(r, measure_s);
	doctor_read_routes(r);
	for (size_t i = 0; i < sizeof(doctor_checks) / sizeof(doctor_checks[0]); i++)
		doctor_checks[i].run(r);
	r->verdict = doctor_slow_count(r) ? VERDICT_SLOW :
		     r->unreadable ? VERDICT_UNCHECKED : VERDICT_FAST;
}

/* The findings, their evidence and actions, then the verdict. */
static void print_text(const struct doctor_report *r)
{
	const struct host_facts *h = r->host;
	printf("vdsokit doctor: Linux %s, library %s, clocksource %s%s%s\n\n", host_kernel_text(h),
	       vdsokit_arch_name(), fact_text(&h->clocksource),
	       r->image_file ? ", image " : "", r->image_file ? text_shown(r->image_file) : "");
	for (unsigned i = 0; i < r->count; i++) {
		const struct doctor_finding *f = &r->findings[i];
		static const char *const tags[] = { "ok  ", "info", "warn", "SLOW" };
		/* Findings quote what came from outside (paths, LD_PRELOAD): shown escaped. */
		printf("  %s  %s\n", tags[f->severity], text_shown(f->title));
		if (f->severity == SEVERITY_OK && i + 1 < r->count) {
			/* Healthy facts: one line of evidence is enough. */
			if (f->evidence_count)
				printf("        %s\n", text_shown(f->evidence[0]));
			continue;
		}
		for (unsigned e = 0; e < f->evidence_count; e++)
			printf("        evidence: %s\n", text_shown(f->evidence[e]));
		if (f->action[0])
			printf("        action:   %s\n", text_shown(f->action));
	}
	switch (r->verdict) {
	case VERDICT_UNCHECKED:
		printf("\nVerdict: no call found off its fast path, but what could not be read "
		       "was not checked:\n");
		host_print_unknowns(stdout, h, "  ");
		break;
	case VERDICT_FAST:
		printf("\nVerdict: every call is on its fast path.\n");
		break;
	case VERDICT_SLOW:
		printf("\nVerdict: not on the fast path (");
		for (unsigned i = 0, n = 0; i < r->count; i++)
			if (r->findings[i].severity == SEVERITY_SLOW)
				printf("%s%s", n++ ? ", " : "", r->findings[i].id);
		printf(").\n");
		break;
	}
}

static void json_vdso(struct json_writer *w, const struct doctor_report *r)
{
	const struct doctor_vdso *v = &r->vdso;
	json_key(w, "vdso");
	json_object_begin(w);
	json_kv_bool(w, "mapped", v->mapped);
	json_kv_bool(w, "usable", v->usable);
	json_kv_hex(w, "address", v->address);
	json_key(w, "size");
	if (v->size)
		json_uint(w, v->size);
	else
		json_null(w);
	json_kv_string(w, "missing_reason", no_vdso_reason_id(v->missing));
	json_kv_string(w, "image_file", r->image_file);
	json_object_end(w);
}

static void json_clocksource(struct json_writer *w, const struct doctor_report *r)
{
	const struct doctor_clocksource *cs = &r->clocksource;
	json_key(w, "clocksource");
	json_object_begin(w);
	json_kv_fact(w, "current", &r->host->clocksource);
	json_kv_fact(w, "available", &r->host->available_clocksources);
	json_kv_string(w, "vdso_capable", cs->capable == 1 ? "yes" : cs->capable == 0 ? "no" :
		       "unknown");
	json_kv_bool(w, "measured", cs->measured);
	json_kv_double(w, "vdso_ns", cs->measured ? cs->vdso_ns : NAN);
	json_kv_double(w, "syscall_ns", cs->measured ? cs->syscall_ns : NAN);
	json_kv_double(w, "syscall_over_vdso", cs->measured ? cs->ratio : NAN);
	json_kv_bool(w, "fallback", cs->fallback);
	json_object_end(w);
}

static void json_environment(struct json_writer *w, const struct doctor_report *r)
{
	const struct doctor_env *env = &r->env;
	const struct host_facts *h = r->host;
	json_key(w, "environment");
	json_object_begin(w);
	json_kv_string(w, "emulator", env->emulator);
	json_kv_string(w, "cmdline", env->cmdline_readable ? env->cmdline : NULL);
	json_kv_string(w, "cmdline_vdso", env->cmdline_vdso[0] ? env->cmdline_vdso : NULL);
	json_kv_string(w, "cmdline_clocksource",
		       env->cmdline_clocksource[0] ? env->cmdline_clocksource : NULL);
	json_kv_string(w, "cpuinfo_family", env->cpuinfo_family[0] ? env->cpuinfo_family : NULL);
	json_kv_fact(w, "process_name", &h->process_name);
	json_kv_fact_int(w, "seccomp_mode", &h->seccomp_mode);
	json_kv_fact_int(w, "seccomp_filters", &h->seccomp_filters);
	json_kv_fact(w, "time_namespace", &h->time_ns);
	json_kv_fact(w, "init_time_namespace", &h->init_time_ns);
	json_kv_fact_int(w, "monotonic_offset_s", &h->monotonic_offset_s);
	json_kv_fact_int(w, "boottime_offset_s", &h->boottime_offset_s);
	json_kv_string(w, "hypervisor", env->hypervisor[0] ? env->hypervisor : NULL);
	json_object_end(w);
}

static void json_routes(struct json_writer *w, const struct doctor_report *r)
{
	json_key(w, "functions");
	json_array_begin(w);
	for (unsigned i = 0; i < r->route_count; i++) {
		const struct doctor_route *route = &r->routes[i];
		const struct vdsokit_route_info *p = &route->info;
		char name[32];
		json_object_begin(w);
		json_kv_string(w, "function", cli_func_name(route->fn));
		if (route->clock >= 0)
			json_kv_string(w, "clock", clock_id_name(name, sizeof(name), route->clock));
		json_kv_string(w, "route", vdsokit_route_name(p->route));
		json_kv_string(w, "reason", cli_reason_text(p->reason));
		json_kv_string(w, "symbol", p->symbol);
		json_kv_string(w, "version", p->version);
		json_kv_string(w, "syscall", p->syscall);
		json_object_end(w);
	}
	json_array_end(w);
}

static void json_findings(struct json_writer *w, const struct doctor_report *r)
{
	json_key(w, "findings");
	json_array_begin(w);
	for (unsigned i = 0; i < r->count; i++) {
		const struct doctor_finding *f = &r->findings[i];
		json_object_begin(w);
		json_kv_string(w, "id", f->id);
		json_kv_string(w, "severity", doctor_severity_name(f->severity));
		json_kv_string(w, "title", f->title);
		json_key(w, "evidence");
		json_array_begin(w);
		for (unsigned e = 0; e < f->evidence_count; e++)
			json_string(w, f->evidence[e]);
		json_array_end(w);
		json_kv_string(w, "action", f->action[0] ? f->action : NULL);
		json_object_end(w);
	}
	json_array_end(w);
}

static void json_verdict(struct json_writer *w, const struct doctor_report *r)
{
	json_key(w, "verdict");
	json_object_begin(w);
	/* Unknown, not true, when facts it needs could not be read. */
	json_key(w, "fast");
	if (r->verdict == VERDICT_UNCHECKED)
		json_null(w);
	else
		json_bool(w, r->verdict == VERDICT_FAST);
	json_key(w, "slow");
	json_array_begin(w);
	for (unsigned i = 0; i < r->count; i++)
		if (r->findings[i].severity == SEVERITY_SLOW)
			json_string(w, r->findings[i].id);
	json_array_end(w);
	json_object_end(w);
}

static void print_json(const struct doctor_report *r)
{
	struct json_writer w;
	json_document_begin(&w, stdout, "doctor");
	json_host(&w, r->host, r->init_result);
	json_kv_string(&w, "image", r->image_file);
	json_vdso(&w, r);
	json_clocksource(&w, r);
	json_environment(&w, r);
	json_routes(&w, r);
	json_findings(&w, r);
	json_verdict(&w, r);
	json_document_end(&w);
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s doctor [--json] [--image FILE]\n"
		"\n"
		"Explains why a call is not on its fast path, with the evidence and a\n"
		"suggested action: no vDSO mapped (vdso=0, qemu-user, valgrind, rr), a\n"
		"function this kernel's vDSO lacks, a clocksource the vDSO cannot read\n"
		"(measured: a vDSO clock_gettime within %.0fx of the syscall's cost is the\n"
		"syscall), CPU-time clocks, seccomp, time namespaces, 32-bit userspace on a\n"
		"64-bit kernel, virtual machines.\n"
		"\n"
		"Options:\n"
		"  --json        machine-readable output (schema vdsokit-doctor)\n"
		"  --image FILE  test aid: examine this vDSO image file instead of the\n"
		"                process's vDSO (e.g. its stack use: vdso-stack-deep);\n"
		"                refused (exit 2) as by verify --image\n"
		"  -h, --help    this help\n"
		"\n"
		"Exit status: 0 every call is on its fast path, 1 otherwise, 2 usage error.\n",
		CLI_PROGRAM, DOCTOR_FALLBACK_RATIO);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "image", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *image_file = NULL;
	int c;
	while ((c = cli_getopt(argc, argv, "h", options)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'i':
			image_file = optarg;
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
	if (image_file && use_image_file(argv[0], image_file) != 0)
		return CLI_EXIT_USAGE;

	struct host_facts host;
	static struct doctor_report report;
	host_facts_read(&host);
	int init_result = vdsokit_init();
	doctor_examine(&report, &host, init_result, DOCTOR_MEASURE_S);
	if (json)
		print_json(&report);
	else
		print_text(&report);
	return report.verdict == VERDICT_SLOW ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
