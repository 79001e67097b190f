/* SPDX-License-Identifier: MIT */
/*
 * vdsokit info: the inventory of this process's vDSO: where it is mapped,
 * the data pages beside it, what the image holds, and which vDSO symbol
 * (or syscall) serves each function of the library.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"
#include "images/images.h"

static const char usage[] =
	"Usage: vdsokit info [--json] [--image FILE]\n"
	"\n"
	"Shows this process's vDSO: its address range and size, the data pages\n"
	"beside it ([vvar], [vvar_vclock] ... from /proc/self/maps), ELF class,\n"
	"machine and byte order, build-id, hash tables, version definitions, every\n"
	"dynamic symbol, and which symbol each libvdsokit function uses, with the\n"
	"deepest stack its vDSO entry touched below the stack pointer (measured on\n"
	"a painted stack, over every clock the library sends to the vDSO).\n"
	"\n"
	"Options:\n"
	"  --json        JSON on stdout (docs/json.md, schema vdsokit-info)\n"
	"  --image FILE  test aid: the functions and stack use of this vDSO image\n"
	"                file instead of the process's vDSO; refused (exit 2) as\n"
	"                by verify --image\n"
	"  -h, --help    this help\n";

#define MAX_MAPPINGS 16

static const char *size_text(char *buf, size_t size, uintptr_t bytes)
{
	if (bytes % 1024 == 0)
		snprintf(buf, size, "%lu KiB", (unsigned long)(bytes / 1024));
	else
		snprintf(buf, size, "%lu bytes", (unsigned long)bytes);
	return buf;
}

/* Measured once per run: each figure is three child processes per clock. */
static struct vdso_stack_use stack_use[VDSOKIT_FN_COUNT];

static void measure_stack_use(void)
{
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++)
		vdso_stack_measure((enum vdsokit_func)fn, &stack_use[fn]);
}

/*
 * How each library function is served, as the text and the JSON show it:
 * its route (for CLOCK_REALTIME: the clocks the vDSO serves), the offset of
 * its entry in the image, and its measured stack use.
 */
struct info_function {
	enum vdsokit_func fn;
	bool known;                       /* vdsokit_route_of answered */
	struct vdsokit_route_info route;
	bool has_offset;
	unsigned long offset;             /* of route.address in the image */
	const struct vdso_stack_use *stack;
};

static void info_functions(struct info_function out[VDSOKIT_FN_COUNT],
			   const struct vdsokit_image *img)
{
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		struct info_function *f = &out[fn];
		memset(f, 0, sizeof(*f));
		f->fn = fn;
		f->stack = &stack_use[fn];
		f->known = vdsokit_route_of(fn, CLOCK_REALTIME, &f->route) == 0;
		f->has_offset = f->known && img && f->route.address;
		if (f->has_offset)
			f->offset = (unsigned long)((const unsigned char *)f->route.address - img->data);
	}
}

static void print_functions_text(const struct info_function *functions,
				 const struct vdsokit_image *img)
{
	static const char *const headers[] = { "function", "route", "symbol", "offset",
					       "stack", "fallback syscall", "why" };
	static const enum table_align align[] = { TABLE_LEFT, TABLE_LEFT, TABLE_LEFT,
						  TABLE_RIGHT, TABLE_RIGHT, TABLE_LEFT, TABLE_LEFT };
	struct table t;
	char stack[32];
	table_init(&t, 7, headers, align);
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		const struct info_function *f = &functions[fn];
		const struct vdsokit_route_info *path = &f->route;
		table_row(&t);
		table_cell(&t, cli_func_name(fn));
		if (!f->known) {
			table_cell(&t, "?");
			continue;
		}
		table_cell(&t, vdsokit_route_name(path->route));
		if (path->symbol)
			table_cellf(&t, "%s%s%s", path->symbol, path->version ? "@" : "",
				    path->version ? path->version : "");
		else
			table_cell(&t, "-");
		if (f->has_offset)
			table_cellf(&t, "0x%lx", f->offset);
		else
			table_cell(&t, "-");
		table_cell(&t, vdso_stack_text(stack, sizeof(stack), f->stack));
		if (path->syscall)
			table_cellf(&t, "%s (%ld)", path->syscall, path->syscall_nr);
		else
			table_cell(&t, "-");
		table_cell(&t, cli_reason_text(path->reason));
	}
	printf("\nlibvdsokit functions (clock functions shown for CLOCK_REALTIME):\n");
	table_print(&t, stdout, "  ");
	table_free(&t);
	printf("\nstack: the deepest byte the vDSO entry touched below the stack pointer at the "
	       "call,\nover every clock the library sends to the vDSO (\"<=\": seen at a page's "
	       "granularity only)\n");
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		const struct vdso_stack_use *u = functions[fn].stack;
		char clock[32];
		if (u->measured && u->through_library)
			printf("  %s: through vdsokit_%s_via(VDSOKIT_ROUTE_VDSO), its frame included\n",
			       cli_func_name(fn), cli_func_name(fn));
		if (u->measured && u->deepest_clock >= 0)
			printf("  %s: deepest with CLOCK_%s, over %u clocks\n", cli_func_name(fn),
			       clock_id_name(clock, sizeof(clock), u->deepest_clock), u->clock_count);
		if (!u->measured && u->why[0] && img)
			printf("  %s: not measured: %s\n", cli_func_name(fn), u->why);
	}
}

static void print_functions_json(struct json_writer *w, const struct info_function *functions)
{
	json_key(w, "functions");
	json_array_begin(w);
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		const struct info_function *f = &functions[fn];
		const struct vdsokit_route_info *path = &f->route;
		json_object_begin(w);
		json_kv_string(w, "function", cli_func_name(fn));
		if (f->known) {
			json_kv_string(w, "route", vdsokit_route_name(path->route));
			json_kv_string(w, "reason", cli_reason_text(path->reason));
			json_kv_string(w, "symbol", path->symbol);
			json_kv_string(w, "version", path->version);
			json_key(w, "offset");
			if (f->has_offset)
				json_stringf(w, "0x%lx", f->offset);
			else
				json_null(w);
			json_kv_string(w, "syscall", path->syscall);
			/* null for none, as docs/json.md says: the API's -1 is no number. */
			json_key(w, "syscall_nr");
			if (path->syscall && path->syscall_nr >= 0)
				json_int(w, path->syscall_nr);
			else
				json_null(w);
		}
		vdso_stack_json(w, f->stack);
		json_object_end(w);
	}
	json_array_end(w);
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "image", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *image_file = NULL;
	int c;
	while ((c = cli_getopt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'i': image_file = optarg; break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("info", "unexpected argument '%s'", argv[optind]);
	/* The file's functions stand in for the vDSO's, stack figures included. */
	if (image_file && use_image_file(argv[0], image_file) != 0)
		return CLI_EXIT_USAGE;

	int init_result = vdsokit_init();
	const struct vdsokit_image *img = vdsokit_process_image();
	struct host_facts host;
	host_facts_read(&host);
	const struct vdso_mapping *maps = host.mappings;
	unsigned map_count = host.mapping_count;

	/* Why the auxv names no vDSO: doctor's reason (host/no_vdso.c). */
	const char *absent_why = NULL;
	if (!host.auxv_sysinfo_ehdr) {
		struct doctor_env env;
		doctor_env_read(&env, &host);
		absent_why = no_vdso_reason_text(no_vdso_reason_of(&env));
	}
	measure_stack_use();
	struct info_function functions[VDSOKIT_FN_COUNT];
	info_functions(functions, img);
	if (json) {
		struct json_writer w;
		json_document_begin(&w, stdout, "info");
		json_host(&w, &host, init_result);
		json_kv_int(&w, "pid", getpid());
		json_key(&w, "at_sysinfo_ehdr");
		if (host.auxv_sysinfo_ehdr)
			json_stringf(&w, "0x%lx", host.auxv_sysinfo_ehdr);
		else
			json_null(&w);
		json_kv_string(&w, "at_sysinfo_ehdr_absent_reason", absent_why);
		json_kv_string(&w, "image_file", image_file);
		json_key(&w, "mappings");
		/* null, not [], when /proc/self/maps cannot be read (host.unknown says why). */
		if (!host.maps.known)
			json_null(&w);
		else
			json_array_begin(&w);
		for (unsigned i = 0; i < map_count; i++) {
			json_object_begin(&w);
			json_kv_string(&w, "name", maps[i].name);
			json_kv_hex(&w, "start", maps[i].start);
			json_kv_hex(&w, "end", maps[i].end);
			json_kv_uint(&w, "size", maps[i].end - maps[i].start);
			json_kv_string(&w, "perms", maps[i].perms);
			json_object_end(&w);
		}
		if (host.maps.known)
			json_array_end(&w);
		json_key(&w, "image");
		if (img) {
			json_object_begin(&w);
			json_kv_hex(&w, "start", (uintptr_t)img->data);
			json_kv_hex(&w, "end", (uintptr_t)img->data + img->size);
			image_print_json(&w, img);
			json_object_end(&w);
		} else {
			json_null(&w);
		}
		print_functions_json(&w, functions);
		json_document_end(&w);
		return CLI_EXIT_OK;
	}

	char a[32];
	printf("vDSO of this process (pid %d), Linux %s\n", (int)getpid(),
	       host_kernel_text(&host));
	if (host.auxv_sysinfo_ehdr)
		printf("AT_SYSINFO_EHDR: 0x%lx\n", host.auxv_sysinfo_ehdr);
	else
		printf("AT_SYSINFO_EHDR: absent: %s\n", absent_why);
	if (image_file)
		printf("image file:      %s (--image, a test aid: the image and functions below "
		       "are the file's,\n                 not this kernel's vDSO)\n", text_shown(image_file));
	if (init_result)
		printf("libvdsokit:      no usable vDSO (%s): every call takes the syscall\n",
		       errno_name(-init_result));
	if (!host.maps.known)
		printf("\nmappings: unknown (%s)\n", fact_reason(&host.maps));
	else if (map_count) {
		printf("\nmappings (/proc/self/maps):\n");
		for (unsigned i = 0; i < map_count; i++)
			printf("  %-14s %#lx-%#lx  %8s  %s\n", maps[i].name, (unsigned long)maps[i].start,
			       (unsigned long)maps[i].end,
			       size_text(a, sizeof(a), maps[i].end - maps[i].start), maps[i].perms);
	}
	if (img) {
		printf("\nimage:        %#lx-%#lx\n", (unsigned long)(uintptr_t)img->data,
		       (unsigned long)((uintptr_t)img->data + img->size));
		image_print_text(stdout, img);
	}
	print_functions_text(functions, img);
	return CLI_EXIT_OK;
}
