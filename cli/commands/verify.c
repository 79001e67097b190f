/* SPDX-License-Identifier: MIT */
/*
 * vdsokit verify: every vDSO function against the raw syscall, in this
 * process and inside a time namespace.  The checks live in verify_*.c;
 * this file parses the options, shares out the time budget and reports.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/checks.h"
#include "checks/known_findings.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "images/images.h"

#define DEFAULT_SECONDS 1.0
#define MAX_CHECKS 256

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s verify [--time SECONDS] [--threads N] [--json] [--image FILE]\n"
		"\n"
		"Checks the vDSO's answers against the raw syscall's, through the raw\n"
		"vDSO symbol and through libvdsokit:\n"
		"  clock_gettime   ids 0-11 between a syscall reading taken before and one\n"
		"                  after, repeated; invalid ids rejected with the same error\n"
		"  clock_getres    equal to the syscall's, ids 0-11 and invalid ids\n"
		"  aux clocks      clock_gettime and clock_getres of ids 16-23 (Linux 6.17+):\n"
		"                  the library's equal to the syscall's; where the raw vDSO\n"
		"                  differs (6.17+ without CONFIG_POSIX_AUX_CLOCKS: getres\n"
		"                  succeeds, the syscall says EINVAL) the check says DIFF,\n"
		"                  a kernel finding that does not fail the run (also named\n"
		"                  on stderr); one that is documented kernel behaviour\n"
		"                  names its entry in " KNOWN_FINDINGS_DOC "\n"
		"  gettimeofday    within the CLOCK_REALTIME sandwich, same timezone, NULL ok\n"
		"  time            within the CLOCK_REALTIME seconds\n"
		"  getcpu          equal to the syscall's on every allowed CPU\n"
		"  monotonic       never backwards, within and across N threads\n"
		"  getrandom       full lengths, distinct outputs\n"
		"  timens          the clock checks inside a new time namespace with offsets\n"
		"                  (needs CAP_SYS_ADMIN or unprivileged user namespaces)\n"
		"\n"
		"Options:\n"
		"  --time SECONDS  time budget of the repeated checks (default %.1f)\n"
		"  --threads N     threads of the monotonic check (default: allowed CPUs, >= 2)\n"
		"  --json          machine-readable output (schema vdsokit-verify)\n"
		"  --image FILE    test aid: check the functions of this vDSO image file\n"
		"                  instead of the process's vDSO; refused (exit 2) when its\n"
		"                  code cannot run from a file: truncated, or a dump of a\n"
		"                  live vDSO, which reads the kernel's data pages\n"
		"  -h, --help      this help\n"
		"\n"
		"Exit status: 0 every check passed, was skipped with a reason or is a DIFF,\n"
		"1 a check failed, 2 usage error.\n", CLI_PROGRAM, DEFAULT_SECONDS);
}

static unsigned default_threads(void)
{
	int cpus[1024];
	unsigned n = allowed_cpus(cpus, 1024);
	if (n < 2)
		return 2;
	return n > 64 ? 64 : n;
}

/*
 * The documented kernel finding r is an instance of; only for this process's
 * own vDSO: an --image file is not the kernel's code, and the synthetic
 * images' fixed answers would pass for a kernel's.
 */
static const struct known_finding *finding_for(const struct check_result *r, bool own_vdso)
{
	return own_vdso ? known_finding_of(r) : NULL;
}

static void print_text(const struct check_list *list, const struct host_facts *h,
		       double seconds, unsigned threads, bool own_vdso)
{
	size_t width = 0;
	for (unsigned i = 0; i < list->count; i++)
		if (strlen(list->items[i].name) > width)
			width = strlen(list->items[i].name);

	printf("vdsokit verify: Linux %s, library %s, clocksource %s, %s%s\n",
	       host_kernel_text(h), vdsokit_arch_name(), fact_text(&h->clocksource),
	       cli_image_path() ? "image " : "vDSO ",
	       cli_image_path() ? text_shown(cli_image_path()) :
	       h->auxv_sysinfo_ehdr ? "mapped" : "not mapped (every path is the syscall)");
	if (cli_image_path())
		printf("(a test aid: the vDSO paths run the code of %s, not the kernel's vDSO)\n",
		       text_shown(cli_image_path()));
	printf("time budget %.2f s, %u threads\n", seconds, threads);
	const char *group = "";
	for (unsigned i = 0; i < list->count; i++) {
		const struct check_result *r = &list->items[i];
		if (strcmp(r->group, group) != 0) {
			group = r->group;
			printf("\n%s\n", strcmp(group, "timens") == 0 ?
			       "in a new time namespace (offsets applied):" : group);
		}
		const char *status = r->status == CHECK_PASS ? "pass" :
				     r->status == CHECK_FAIL ? "FAIL" :
				     r->status == CHECK_VDSO_DIFFERS ? "DIFF" : "skip";
		printf("  %s  %-*s  %s\n", status, (int)width, r->name, r->detail);
		/* A documented kernel finding: say so, so that nobody hunts it on their system. */
		const struct known_finding *f = finding_for(r, own_vdso);
		if (f)
			printf("        %-*s  known kernel behaviour, see %s#%s\n", (int)width, "",
			       KNOWN_FINDINGS_DOC, f->id);
	}
	struct check_counts n = check_count(list);
	printf("\n%u checks: %u passed, %u failed, %u skipped", list->count, n.pass, n.fail, n.skip);
	if (n.vdso_differs)
		printf(", %u vDSO/syscall disagreements (DIFF; the library agrees)", n.vdso_differs);
	printf("%s\n", n.fail || n.vdso_differs ? "" : " - the vDSO agrees with the syscall");
}

static void print_json(const struct check_list *list, const struct host_facts *h,
		       int init_result, double seconds, unsigned threads, bool own_vdso)
{
	struct json_writer w;
	json_document_begin(&w, stdout, "verify");
	json_host(&w, h, init_result);
	json_key(&w, "config");
	json_object_begin(&w);
	json_kv_double(&w, "seconds", seconds);
	json_kv_int(&w, "threads", threads);
	json_kv_string(&w, "image", cli_image_path());
	json_object_end(&w);
	json_key(&w, "checks");
	json_array_begin(&w);
	for (unsigned i = 0; i < list->count; i++) {
		const struct check_result *r = &list->items[i];
		json_object_begin(&w);
		json_kv_string(&w, "group", r->group);
		json_kv_string(&w, "name", r->name);
		json_kv_string(&w, "status", check_status_name(r->status));
		json_kv_string(&w, "detail", r->detail);
		const struct known_finding *f = finding_for(r, own_vdso);
		json_kv_string(&w, "known_finding", f ? f->id : NULL);
		json_key(&w, "numbers");
		json_object_begin(&w);
		for (unsigned n = 0; n < r->number_count; n++)
			json_kv_int(&w, r->numbers[n].key, r->numbers[n].value);
		json_object_end(&w);
		json_key(&w, "units");
		json_object_begin(&w);
		for (unsigned n = 0; n < r->number_count; n++)
			if (r->numbers[n].unit[0])
				json_kv_string(&w, r->numbers[n].key, r->numbers[n].unit);
		json_object_end(&w);
		json_object_end(&w);
	}
	json_array_end(&w);
	struct check_counts n = check_count(list);
	json_key(&w, "summary");
	json_object_begin(&w);
	json_kv_int(&w, "checks", list->count);
	json_kv_int(&w, "passed", n.pass);
	json_kv_int(&w, "failed", n.fail);
	json_kv_int(&w, "skipped", n.skip);
	json_kv_int(&w, "vdso_differs", n.vdso_differs);
	json_kv_bool(&w, "ok", n.fail == 0);
	json_object_end(&w);
	json_document_end(&w);
}

/* One stderr line per documented finding among the DIFFs: it is the kernel's, not the user's. */
static void print_known_findings(const char *cmd, const struct check_list *list, bool own_vdso)
{
	unsigned count;
	const struct known_finding *findings = known_findings(&count);
	for (unsigned k = 0; k < count; k++) {
		unsigned matches = 0;
		for (unsigned i = 0; i < list->count; i++)
			matches += finding_for(&list->items[i], own_vdso) == &findings[k];
		if (matches)
			fprintf(stderr, "%s %s: %u of them: known kernel behaviour, not this system: "
				"%s; see %s#%s\n", CLI_PROGRAM, cmd, matches, findings[k].title,
				KNOWN_FINDINGS_DOC, findings[k].id);
	}
}

int cmd_verify(int argc, char **argv)
{
	static const struct option options[] = {
		{ "time", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "image", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = DEFAULT_SECONDS;
	long threads = 0;
	bool json = false;
	const char *image = NULL;
	int c;
	while ((c = cli_getopt(argc, argv, "h", options)) != -1) {
		switch (c) {
		case 't':
			if (!cli_parse_double(argv[0], "--time", optarg, 0.01, 3600, &seconds))
				return CLI_EXIT_USAGE;
			break;
		case 'n':
			if (!cli_parse_long(argv[0], "--threads", optarg, 1, 256, &threads))
				return CLI_EXIT_USAGE;
			break;
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
	if (threads == 0)
		threads = default_threads();
	if (image && use_image_file(argv[0], image) != 0)
		return CLI_EXIT_USAGE;

	struct check_list list = { calloc(MAX_CHECKS, sizeof(struct check_result)), 0,
				   MAX_CHECKS, 0 };
	if (!list.items)
		return cli_error(argv[0], NULL, "out of memory");
	struct host_facts host;
	host_facts_read(&host);
	int init_result = vdsokit_init();

	/* Shares of the budget: the sandwiches and the threads find the rare faults. */
	progress_begin(argv[0], seconds);
	progress_phase("clock_gettime");
	verify_clock_gettime(&list, "clock_gettime", seconds * 0.35);
	progress_phase("clock_getres");
	verify_clock_getres(&list, "clock_getres");
	progress_phase("auxiliary clocks");
	verify_aux_clocks(&list, "auxiliary clocks", seconds * 0.05);
	progress_phase("gettimeofday and time");
	verify_gettimeofday_and_time(&list, "gettimeofday and time", seconds * 0.10);
	progress_phase("getcpu");
	verify_getcpu(&list, "getcpu", seconds * 0.05);
	progress_phase("monotonic, %ld threads", threads);
	verify_monotonic(&list, "monotonic", seconds * 0.25, (unsigned)threads);
	progress_phase("getrandom");
	verify_getrandom(&list, "getrandom");
	progress_phase("time namespace");
	verify_time_namespace(&list, seconds * 0.20);
	progress_end();
	if (list.dropped) {
		struct check_result *r = &list.items[list.count - 1];
		check_set(r, CHECK_FAIL, "%u further results did not fit (internal limit %u)",
			  list.dropped, MAX_CHECKS);
	}

	if (json)
		print_json(&list, &host, init_result, seconds, (unsigned)threads, image == NULL);
	else
		print_text(&list, &host, seconds, (unsigned)threads, image == NULL);
	struct check_counts n = check_count(&list);
	/* Not silent even with --json on stdout: a kernel finding is worth a line. */
	if (n.vdso_differs) {
		fflush(stdout);   /* whole stdout lines first, for `> log 2>&1` */
		fprintf(stderr, "%s %s: warning: the raw vDSO disagrees with the syscall in %u "
			"checks (the library agrees):", CLI_PROGRAM, argv[0], n.vdso_differs);
		for (unsigned i = 0; i < list.count; i++)
			if (list.items[i].status == CHECK_VDSO_DIFFERS)
				fprintf(stderr, " %s", list.items[i].name);
		fputc('\n', stderr);
		print_known_findings(argv[0], &list, image == NULL);
	}
	free(list.items);
	return n.fail ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
