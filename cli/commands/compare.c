/* SPDX-License-Identifier: MIT */
/*
 * vdsokit compare: the before/after table of a patch cover letter, from the
 * JSON that `vdsokit bench --json` wrote on each side (say, a kernel without
 * and with a vDSO); with one file, the syscall against the vDSO of that run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"
#include "measure/measure.h"

static const char usage[] =
	"Usage: vdsokit compare BEFORE.json [AFTER.json] [--markdown | --json]\n"
	"                       [--path PATH] [--svg FILE]\n"
	"\n"
	"With two files (written by `vdsokit bench --json`): per function and clock,\n"
	"ns per call before, after, and the improvement (before / after), matched\n"
	"by label; the figures are the medians of PATH (default vdsokit: what the\n"
	"library does, the vDSO when there is one, the syscall otherwise).\n"
	"With one file: the syscall path (before) against PATH (after) of that run.\n"
	"\n"
	"Options:\n"
	"  --markdown   a Markdown table, ready for a cover letter or a README\n"
	"  --json       JSON on stdout (docs/json.md, schema vdsokit-compare)\n"
	"  --path PATH  vdsokit, vdso, libc or syscall (default vdsokit)\n"
	"  --svg FILE   also write a bar chart (log scale) to FILE (`-`: stdout,\n"
	"               instead of the table; never one of the input files)\n"
	"  -h, --help   this help\n";

#define MAX_INPUT_SIZE (64u << 20)

struct bench_file {
	const char *path;
	struct json_document doc;
	const struct json_value *results;   /* the "results" array */
	char description[160];              /* "Linux 6.1 m68k" */
};

/* One row, as the table, the JSON and the chart show it. */
struct compare_row {
	const char *label;
	double before_ns, after_ns;
	double improvement;                 /* before / after: NaN unless both */
};

static void compare_row_set(struct compare_row *row, const char *label, double before_ns,
			    double after_ns)
{
	row->label = label;
	row->before_ns = before_ns;
	row->after_ns = after_ns;
	row->improvement = before_ns / after_ns;
}

/* 0, or prints why FILE is unusable and returns CLI_EXIT_USAGE. */
static int load(struct bench_file *f, const char *path)
{
	size_t size;
	int err;
	char error[128];

	memset(f, 0, sizeof(*f));
	f->path = path;
	unsigned char *text = cli_read_file(path, MAX_INPUT_SIZE, &size, &err);
	if (!text)
		return cli_error("compare", path, "%s", cli_read_error(path, err, "larger than 64 MiB"));
	/* The text goes as soon as it is parsed: memory stays a small multiple of one copy. */
	int parsed = json_parse((const char *)text, size, &f->doc, error, sizeof(error));
	free(text);
	if (parsed != 0)
		return cli_error("compare", path, "not valid JSON: %s", error);
	const struct json_value *root = &f->doc.root;

	const char *schema = json_get_string(root, "schema");
	const struct json_value *version_value = json_get(root, "schema_version");
	double version = json_get_number(root, "schema_version", NAN);
	if (!schema || strcmp(schema, "vdsokit-bench") != 0)
		return cli_error("compare", path, "not the output of `vdsokit bench --json` "
				 "(schema %s%s%s)", schema ? "\"" : "", schema ? schema : "missing",
				 schema ? "\"" : "");
	/* Say what is there: a string or a missing member is no "nan". */
	if (!version_value)
		return cli_error("compare", path, "no schema_version member");
	if (version_value->type == JSON_STRING)
		return cli_error("compare", path, "schema_version is a string, not a number: "
				 "this vdsokit reads 1 to %d", CLI_JSON_SCHEMA_VERSION);
	if (version_value->type != JSON_NUMBER)
		return cli_error("compare", path, "schema_version is not a number: this vdsokit "
				 "reads 1 to %d", CLI_JSON_SCHEMA_VERSION);
	if (!(version >= 1 && version <= CLI_JSON_SCHEMA_VERSION))
		return cli_error("compare", path, "schema_version %g is not one this vdsokit "
				 "reads (1 to %d)", version, CLI_JSON_SCHEMA_VERSION);
	f->results = json_get(root, "results");
	if (!f->results || f->results->type != JSON_ARRAY)
		return cli_error("compare", path, "no \"results\" array");

	const struct json_value *host = json_get(root, "host");
	const char *release = json_get_string(host, "kernel_release");
	const char *machine = json_get_string(host, "machine");
	snprintf(f->description, sizeof(f->description), "Linux %s %s",
		 release ? release : "?", machine ? machine : "?");
	return 0;
}

static void unload(struct bench_file *f)
{
	json_free(&f->doc);
}

/* The median of one path of one result, NaN when that path was not measured. */
static double path_median(const struct json_value *result, const char *path)
{
	const struct json_value *stats = json_get(json_get(result, "paths"), path);
	const struct json_value *available = json_get(stats, "available");
	if (available && available->type == JSON_BOOL && !available->boolean)
		return NAN;
	double v = json_get_number(stats, "median_ns", NAN);
	return v > 0 ? v : NAN;
}

/* "PATH (Linux 6.1 m68k)": the file's own words, made safe for a terminal. */
static void print_file(FILE *out, const char *prefix, const struct bench_file *f,
		       const char *suffix)
{
	fputs(prefix, out);
	text_write(out, f->path, TEXT_TERMINAL);
	fputs(" (", out);
	text_write(out, f->description, TEXT_TERMINAL);
	fprintf(out, ")%s", suffix);
}

/* ns/call as a plain number: the unit is in the column heading. */
static const char *fmt_ns_number(char *buf, size_t size, double ns)
{
	return fmt_3_digits(buf, size, ns, "");
}

static void print_table(const struct compare_row *rows, unsigned count, bool markdown,
			const char *before_title, const char *after_title)
{
	char before_h[96], after_h[96], buf[32];
	const char *headers[] = { "function/clock", before_h, after_h, "improvement" };
	struct table t;

	snprintf(before_h, sizeof(before_h), "%s (ns/call)", before_title);
	snprintf(after_h, sizeof(after_h), "%s (ns/call)", after_title);
	table_init(&t, 4, headers, NULL);
	for (unsigned i = 0; i < count; i++) {
		table_row(&t);
		table_cell(&t, rows[i].label);
		table_cell(&t, fmt_ns_number(buf, sizeof(buf), rows[i].before_ns));
		table_cell(&t, fmt_ns_number(buf, sizeof(buf), rows[i].after_ns));
		table_cell(&t, fmt_ratio(buf, sizeof(buf), rows[i].improvement));
	}
	if (markdown)
		table_print_markdown(&t, stdout);
	else
		table_print(&t, stdout, NULL);
	table_free(&t);
}

static void print_json(const struct compare_row *rows, unsigned count, const char *before_file,
		       const char *after_file, const char *before_path, const char *after_path)
{
	struct json_writer w;
	json_document_begin(&w, stdout, "compare");
	json_key(&w, "before");
	json_object_begin(&w);
	json_kv_string(&w, "file", before_file);
	json_kv_string(&w, "path", before_path);
	json_object_end(&w);
	json_key(&w, "after");
	json_object_begin(&w);
	json_kv_string(&w, "file", after_file);
	json_kv_string(&w, "path", after_path);
	json_object_end(&w);
	json_key(&w, "rows");
	json_array_begin(&w);
	for (unsigned i = 0; i < count; i++) {
		json_object_begin(&w);
		json_kv_string(&w, "label", rows[i].label);
		json_kv_double(&w, "before_ns", rows[i].before_ns);
		json_kv_double(&w, "after_ns", rows[i].after_ns);
		json_kv_double(&w, "improvement", rows[i].improvement);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_document_end(&w);
}

static int write_svg(struct cli_output_file *file, const struct compare_row *rows, unsigned count,
		     const char *before_title, const char *after_title, const char *subtitle)
{
	const char **groups = calloc(count ? count : 1, sizeof(*groups));
	double *values = calloc(count ? 2 * count : 1, sizeof(*values));
	int status = 0;

	if (!groups || !values) {
		free(groups);
		free(values);
		const char *path = file->path;
		cli_output_abort(file);
		return cli_error("compare", path, "out of memory");
	}
	for (unsigned i = 0; i < count; i++) {
		groups[i] = rows[i].label;
		values[2 * i] = rows[i].before_ns;
		values[2 * i + 1] = rows[i].after_ns;
	}
	struct bar_chart chart = {
		.title = "vdsokit compare: ns per call, before and after",
		.subtitle = subtitle,
		.axis_label = "ns per call (log scale)",
		.series_count = 2,
		.series = { before_title, after_title },
		.group_count = count,
		.groups = groups,
		.values = values,
	};
	status = svg_write_chart_file(file, &chart);
	free(groups);
	free(values);
	return status;
}

static bool valid_path(const char *name)
{
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (strcmp(name, bench_path_name(p)) == 0)
			return true;
	return false;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "markdown", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "path", required_argument, NULL, 'p' },
		{ "svg", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool markdown = false, json = false;
	const char *path_name = "vdsokit", *svg_path = NULL;
	int c;
	while ((c = cli_getopt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'm': markdown = true; break;
		case 'j': json = true; break;
		case 'p': path_name = optarg; break;
		case 's': svg_path = optarg; break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: return CLI_EXIT_USAGE;
		}
	}
	if (markdown && json)
		return cli_usage_error("compare", "--markdown and --json are exclusive");
	if (svg_path && strcmp(svg_path, "-") == 0 && (markdown || json))
		return cli_usage_error("compare", "--svg - and --%s both write to stdout",
				       json ? "json" : "markdown");
	if (!valid_path(path_name))
		return cli_usage_error("compare", "--path: '%s' is not one of vdsokit, vdso, libc, "
				       "syscall", path_name);
	int files = argc - optind;
	if (files < 1)
		return cli_usage_error("compare", "no BEFORE.json given");
	if (files > 2)
		return cli_usage_error("compare", "at most two files ('%s' is extra)", argv[optind + 2]);
	if (files == 2 && strcmp(argv[optind], "-") == 0 && strcmp(argv[optind + 1], "-") == 0)
		return cli_usage_error("compare", "stdin (-) can be read only once: give one of "
				       "the files by name");
	if (files == 1 && strcmp(path_name, "syscall") == 0)
		return cli_usage_error("compare", "--path syscall with one file compares the "
				       "syscall with itself: choose vdsokit, vdso or libc, or give "
				       "two files");

	/* Checked before reading: the input must survive a mistyped --svg. */
	const char *inputs[2] = { argv[optind], files == 2 ? argv[optind + 1] : argv[optind] };
	int refused = svg_path ? cli_output_not_input("compare", "--svg", svg_path, inputs, 2) : 0;
	if (refused)
		return refused;

	struct bench_file before, after;
	memset(&after, 0, sizeof(after));
	int status = load(&before, argv[optind]);
	if (status == 0 && files == 2)
		status = load(&after, argv[optind + 1]);
	else if (files == 1)
		after = before;
	if (status) {
		unload(&before);
		if (files == 2)
			unload(&after);
		return status;
	}

	/* One file: its syscall against the chosen path; two: the same path on both sides. */
	const char *before_path = files == 1 ? "syscall" : path_name;
	char before_title[32], after_title[32], subtitle[400];
	if (files == 1) {
		snprintf(before_title, sizeof(before_title), "syscall");
		snprintf(after_title, sizeof(after_title), "%s", path_name);
		snprintf(subtitle, sizeof(subtitle), "%s: %s, syscall vs %s; medians",
			 before.path, before.description, path_name);
	} else {
		snprintf(before_title, sizeof(before_title), "before");
		snprintf(after_title, sizeof(after_title), "after");
		snprintf(subtitle, sizeof(subtitle), "before: %s (%s), after: %s (%s); path %s; medians",
			 before.path, before.description, after.path, after.description, path_name);
	}

	size_t max_rows = before.results->count + (files == 2 ? after.results->count : 0);
	struct compare_row *rows = calloc(max_rows ? max_rows : 1, sizeof(*rows));
	struct label_index before_index = { 0 }, after_index = { 0 };
	unsigned count = 0;
	if (!rows || (files == 2 && (label_index_build(&before_index, before.results) != 0 ||
				     label_index_build(&after_index, after.results) != 0))) {
		status = cli_error("compare", NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < before.results->count; i++) {
		const struct json_value *b = &before.results->items[i];
		const char *label = json_get_string(b, "label");
		if (!label)
			continue;
		const struct json_value *a = files == 2 ? label_index_find(&after_index, label) : b;
		compare_row_set(&rows[count++], label, path_median(b, before_path),
				a ? path_median(a, path_name) : NAN);
	}
	/* Rows only the after side has (a function the new kernel added). */
	for (size_t i = 0; files == 2 && i < after.results->count; i++) {
		const struct json_value *a = &after.results->items[i];
		const char *label = json_get_string(a, "label");
		if (!label || label_index_find(&before_index, label))
			continue;
		compare_row_set(&rows[count++], label, NAN, path_median(a, path_name));
	}
	if (count == 0) {
		status = cli_error("compare", before.path, "no results with a label");
		goto out;
	}
	/* Two runs that share no label give a table of dashes: nothing was compared. */
	unsigned matched = 0;
	for (unsigned i = 0; i < count; i++)
		matched += files == 1 || (label_index_find(&before_index, rows[i].label) &&
					   label_index_find(&after_index, rows[i].label));
	if (matched == 0) {
		status = cli_error("compare", NULL, "%s and %s have no label in common: nothing to "
				   "compare", before.path, after.path);
		goto out;
	}
	if (svg_path) {
		/* The chart first: a failed write leaves no JSON behind (docs/json.md). */
		struct cli_output_file svg;
		status = cli_output_open(&svg, "compare", svg_path);
		if (!status)
			status = write_svg(&svg, rows, count, before_title, after_title, subtitle);
		if (status || svg.to_stdout)
			goto out;
	}
	if (json) {
		print_json(rows, count, before.path, files == 2 ? after.path : before.path,
			   before_path, path_name);
	} else {
		if (!markdown) {
			if (files == 2) {
				print_file(stdout, "before: ", &before, "\n");
				print_file(stdout, "after:  ", &after, "\n");
				printf("path %s, median ns per call; improvement = before / after\n\n",
				       path_name);
			} else {
				print_file(stdout, "", &before, ": ");
				printf("syscall vs %s, median ns per call; improvement = syscall / %s\n\n",
				       path_name, path_name);
			}
		}
		print_table(rows, count, markdown, before_title, after_title);
	}
out:
	label_index_free(&before_index);
	label_index_free(&after_index);
	free(rows);
	unload(&before);
	if (files == 2)
		unload(&after);
	return status;
}
