/* SPDX-License-Identifier: MIT */
/*
 * Shared interfaces of the vdsokit command-line tool: the subcommands, exit
 * codes, error messages, option parsing, and the output helpers (JSON writer
 * and reader, aligned text tables, SVG bar charts, number formatting).
 *
 * Conventions every subcommand follows:
 *   - int cmd_NAME(int argc, char **argv), argv[0] is the subcommand name;
 *   - options are parsed with cli_getopt() (getopt_long underneath, so
 *     "--opt=value", "--opt value", "-o value" and "--" all work), and every
 *     subcommand accepts -h/--help, which prints its usage to stdout, exit 0;
 *   - results go to stdout, diagnostics to stderr through cli_error() /
 *     cli_usage_error(), which name the subcommand and the input;
 *   - exit status: CLI_EXIT_OK, CLI_EXIT_FAILED (a check failed: verify,
 *     doctor), CLI_EXIT_USAGE (bad usage or unusable input).
 */
#ifndef VDSOKIT_CLI_H
#define VDSOKIT_CLI_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "vdsokit.h"

/* ---------------------------------------------------------------------- */
/* Exit codes and messages                                                 */
/* ---------------------------------------------------------------------- */

enum {
	CLI_EXIT_OK = 0,     /* success                                        */
	CLI_EXIT_FAILED = 1, /* the tool ran, and a check it made failed       */
	CLI_EXIT_USAGE = 2   /* bad usage, unreadable or malformed input       */
};

#define CLI_PROGRAM "vdsokit"

/*
 * "vdsokit CMD: INPUT: reason\n" on stderr (INPUT may be NULL:
 * "vdsokit CMD: reason").  Returns CLI_EXIT_USAGE so callers can write
 * `return cli_error(...)`.
 */
int cli_error(const char *cmd, const char *input, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "vdsokit CMD: reason\nTry 'vdsokit CMD --help'.\n"; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "vdsokit CMD: warning: ...": something was skipped but the run goes on. */
void cli_warning(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Progress of long work (progress.c): one line on stderr that is redrawn
 * in place, only when stderr is a terminal; nothing at all otherwise.
 * begin names the command and the expected seconds; phase says what runs
 * now (printf format); tick redraws at most five times a second; end
 * clears the line.  cli_error/cli_warning clear it before they print.
 */
void progress_begin(const char *cmd, double total_s);
void progress_phase(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_tick(void);
bool progress_active(void);
/* waitpid(pid, status, 0) past EINTR, drawing meanwhile when active. */
pid_t progress_waitpid(pid_t pid, int *status);
void progress_clear(void);
void progress_end(void);

/* ---------------------------------------------------------------------- */
/* Option parsing                                                          */
/* ---------------------------------------------------------------------- */

/*
 * getopt_long() with the tool's conventions: call it in a loop exactly like
 * getopt_long (it resets optind on the first call for argv), it prints
 * "vdsokit CMD: unknown option '--x'" / "option '--x' needs a value" itself
 * and returns '?' for both, so the caller only does
 * `case '?': return CLI_EXIT_USAGE;`.  'h' (-h/--help) must be in the
 * caller's option lists; the caller prints its usage.
 */
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* Numeric option values: false (after printing the usage error) if bad. */
bool cli_parse_long(const char *cmd, const char *option, const char *text,
		    long min, long max, long *value);
bool cli_parse_double(const char *cmd, const char *option, const char *text,
		      double min, double max, double *value);

/*
 * Reads a whole file ("-": stdin) of at most max_size bytes; NULL (and
 * *error set to an errno, EFBIG when larger) on failure.
 */
unsigned char *cli_read_file(const char *path, size_t max_size, size_t *size, int *error);
/* 0, or the errno of a write to stream that failed (flushing it first). */
int cli_stream_error(FILE *stream);
/* Why cli_read_file failed, in words (too_big for EFBIG). */
const char *cli_read_error(const char *path, int error, const char *too_big);

/*
 * A file the tool writes (dump -o, --svg): output_file.c says how it never
 * destroys what it did not create ("-" is stdout; atomic replacement where
 * a rename keeps owner, mode and links, else in place).  open and commit
 * print the error naming the file and return CLI_EXIT_USAGE, or 0; write
 * to o->stream in between; abort drops what was written (the temporary
 * file, or a file open created, never an existing PATH).
 */
struct cli_output_file {
	const char *path, *cmd;
	char *target;              /* PATH, or the file the symlink PATH names */
	char *temp;                /* the temporary beside target, NULL: direct */
	bool to_stdout;            /* PATH is "-"                               */
	bool created;              /* written in place, and created by open     */
	bool truncate;             /* in place, regular: cut to length at commit */
	FILE *stream;
};
/*
 * Whether cli_output_open could write PATH, creating nothing: for a command
 * that measures first and opens the file afterwards.  0, or the error
 * printed and CLI_EXIT_USAGE.
 */
int cli_output_check(const char *cmd, const char *path);
int cli_output_open(struct cli_output_file *o, const char *cmd, const char *path);
int cli_output_commit(struct cli_output_file *o);
void cli_output_abort(struct cli_output_file *o);
/*
 * 0 unless PATH (the value of OPTION) names one of the count input files
 * (the same inode; "-" is stdin/stdout): then a usage error, CLI_EXIT_USAGE.
 */
int cli_output_not_input(const char *cmd, const char *option, const char *path,
			 const char *const *inputs, unsigned count);

/* ---------------------------------------------------------------------- */
/* Subcommands                                                             */
/* ---------------------------------------------------------------------- */

typedef int cli_command_fn(int argc, char **argv);

cli_command_fn cmd_report;   /* report.c  */
cli_command_fn cmd_info;     /* info.c    */
cli_command_fn cmd_inspect;  /* inspect.c */
cli_command_fn cmd_dump;     /* dump.c    */
cli_command_fn cmd_bench;    /* bench.c   */
cli_command_fn cmd_compare;  /* compare.c */
cli_command_fn cmd_verify;   /* verify.c  */
cli_command_fn cmd_abi;      /* abi.c     */
cli_command_fn cmd_doctor;   /* doctor.c  */
cli_command_fn cmd_metrics;  /* metrics.c */

/* ---------------------------------------------------------------------- */
/* Text on its way out (text_escape.c): the one place that escapes         */
/* ---------------------------------------------------------------------- */

enum text_target {
	TEXT_JSON,       /* inside a JSON string: \" \\ \n \u001b, valid UTF-8   */
	TEXT_XML,        /* SVG text and attributes: &lt; &amp; &quot;, XML chars */
	TEXT_MARKDOWN,   /* a table cell: \| and no line break                   */
	TEXT_PROMETHEUS, /* a label value of the text exposition format: \" \\ \n */
	TEXT_TERMINAL,   /* text for people: no control byte, \xNN for non-UTF-8 */
};
/*
 * Writes s (any bytes) to out as well-formed text for target: invalid
 * UTF-8 becomes U+FFFD (\xNN on a terminal), control characters are
 * escaped or replaced.  Returns the characters on screen it took.
 */
size_t text_write(FILE *out, const char *s, enum text_target target);
/* What text_write would return, writing nothing. */
size_t text_width(const char *s, enum text_target target);

/* ---------------------------------------------------------------------- */
/* JSON output                                                             */
/* ---------------------------------------------------------------------- */

/*
 * Every JSON document the tool writes is one object that starts with
 *   "schema": "vdsokit-<kind>", "schema_version": CLI_JSON_SCHEMA_VERSION,
 *   "tool": {"name": "vdsokit", "version": "..."}
 * (docs/json.md).  Bump the version when a field changes meaning or goes
 * away; adding fields does not need a bump.
 */
#define CLI_JSON_SCHEMA_VERSION 1

#define JSON_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	int depth;
	bool has_items[JSON_MAX_DEPTH]; /* a comma is due before the next item */
	bool after_key;                 /* the next value follows "key":       */
};

/* Opens the top-level object and writes the schema fields for `kind`. */
void json_document_begin(struct json_writer *w, FILE *out, const char *kind);
/* Closes the top-level object, ends the line. */
void json_document_end(struct json_writer *w);

void json_object_begin(struct json_writer *w);
void json_object_end(struct json_writer *w);
void json_array_begin(struct json_writer *w);
void json_array_end(struct json_writer *w);
void json_key(struct json_writer *w, const char *key);
void json_string(struct json_writer *w, const char *s); /* NULL: null */
void json_stringf(struct json_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void json_int(struct json_writer *w, long long v);
void json_uint(struct json_writer *w, unsigned long long v);
void json_double(struct json_writer *w, double v); /* NaN/inf: null   */
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);
/* Shorthands for "key": value. */
void json_kv_string(struct json_writer *w, const char *key, const char *s);
void json_kv_int(struct json_writer *w, const char *key, long long v);
void json_kv_uint(struct json_writer *w, const char *key, unsigned long long v);
void json_kv_double(struct json_writer *w, const char *key, double v);
void json_kv_bool(struct json_writer *w, const char *key, bool v);
/* "0x..." string: JSON numbers lose precision above 2^53. */
void json_kv_hex(struct json_writer *w, const char *key, unsigned long long v);

/* ---------------------------------------------------------------------- */
/* JSON input (compare reads bench output)                                 */
/* ---------------------------------------------------------------------- */

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

/* 32 bytes on LP64: a bench file is mostly small values. */
struct json_value {
	enum json_type type;
	bool boolean;
	size_t count;                  /* JSON_ARRAY / JSON_OBJECT           */
	union {
		double number;         /* JSON_NUMBER                        */
		char *string;          /* JSON_STRING; decoded, NUL-ended    */
		struct json_value *items; /* JSON_ARRAY / JSON_OBJECT        */
	};
	char **keys;                   /* JSON_OBJECT                        */
};

/* A parsed document: the values, and the one block all its strings live in. */
struct json_document {
	struct json_value root;
	char *strings;
};

/*
 * Parses a whole document; the text may be freed afterwards.  0, or -1
 * with a message ("line 3: expected ','") in error[0..error_size).  Free
 * with json_free() in either case.
 */
int json_parse(const char *text, size_t length, struct json_document *doc,
	       char *error, size_t error_size);
void json_free(struct json_document *doc);
/* Member of an object, NULL if absent or v is not an object. */
const struct json_value *json_get(const struct json_value *v, const char *key);
/* Typed reads that accept NULL/other types: fallback when missing. */
double json_get_number(const struct json_value *v, const char *key, double fallback);
const char *json_get_string(const struct json_value *v, const char *key);

/*
 * Bench results by label (label_index.c), for compare: built in O(n),
 * found in O(1) on average.
 */
struct label_index {
	size_t *slots;             /* result index + 1; 0: empty          */
	size_t mask;               /* table size - 1 (a power of two)     */
	const struct json_value *results;
};
/* 0, or -1 when out of memory. */
int label_index_build(struct label_index *index, const struct json_value *results);
/* The first result with this label, NULL if none. */
const struct json_value *label_index_find(const struct label_index *index, const char *label);
void label_index_free(struct label_index *index);

/* ---------------------------------------------------------------------- */
/* Aligned text tables                                                     */
/* ---------------------------------------------------------------------- */

enum table_align { TABLE_LEFT, TABLE_RIGHT };

#define TABLE_MAX_COLUMNS 16

struct table {
	unsigned columns;
	const char *headers[TABLE_MAX_COLUMNS];
	enum table_align align[TABLE_MAX_COLUMNS];
	char **cells;           /* rows * columns, row-major, malloc'd */
	unsigned rows, capacity;
	unsigned current_column;/* of the row being filled              */
};

/* headers: `columns` strings; align: NULL for "first left, rest right". */
void table_init(struct table *t, unsigned columns, const char *const *headers,
		const enum table_align *align);
/* Starts a new row; cells are then appended left to right. */
void table_row(struct table *t);
void table_cell(struct table *t, const char *text);
void table_cellf(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Widths count UTF-8 characters, so "µs" and "×" line up. */
void table_print(const struct table *t, FILE *out, const char *indent);
/* GitHub-flavoured Markdown, for patch cover letters and READMEs. */
void table_print_markdown(const struct table *t, FILE *out);
void table_free(struct table *t);

/* ---------------------------------------------------------------------- */
/* SVG charts                                                              */
/* ---------------------------------------------------------------------- */

#define CHART_MAX_SERIES 8

/*
 * Grouped horizontal bars on a logarithmic axis: one group per row (a
 * function and clock), one bar per series (a call path, or before/after).
 * Values <= 0 or NaN are "not measured" and drawn as a gap with "n/a".
 */
struct bar_chart {
	const char *title;
	const char *subtitle;       /* may be NULL                        */
	const char *axis_label;     /* "ns per call (log scale)"          */
	unsigned series_count;
	const char *series[CHART_MAX_SERIES];
	unsigned group_count;
	const char *const *groups;  /* group_count labels                 */
	const double *values;       /* group_count * series_count, row-major */
};

/* 0, or -1 (before writing anything) if the chart has nothing to draw. */
int svg_write_bar_chart(FILE *out, const struct bar_chart *chart);
/*
 * The chart to an output file opened with cli_output_open, committed (or
 * aborted when there is nothing to draw); errors printed, 0 or CLI_EXIT_USAGE.
 */
int svg_write_chart_file(struct cli_output_file *file, const struct bar_chart *chart);

/* ---------------------------------------------------------------------- */
/* Formatting                                                              */
/* ---------------------------------------------------------------------- */

/*
 * Whether text for people may hold UTF-8: the codeset of the environment's
 * LC_CTYPE (LC_ALL=C: no).  Where it may not, µ is "u" and × is "x".
 * JSON and SVG are UTF-8 whatever the locale.
 */
bool cli_text_utf8(void);
const char *cli_micro_sign(void);   /* "µ" or "u" */
const char *cli_times_sign(void);   /* "×" or "x" */

/* "0.42 ns", "33.1 ns", "182 ns", "1.91 µs" ("1.91 us"), "12.3 ms"; "-" for NaN. */
/*
 * value with 2, 1 or 0 decimals as it is below 10, 100 or above (from 1e15
 * on, 3 significant digits with an exponent: "1e+300"), then unit; "-" if
 * not finite or negative.  Fits in 32 bytes with any unit up to 8 bytes.
 */
const char *fmt_3_digits(char *buf, size_t size, double value, const char *unit);
const char *fmt_duration_ns(char *buf, size_t size, double ns);
/* "5.4×", "102×"; "-" for NaN. */
const char *fmt_ratio(char *buf, size_t size, double ratio);

/* "EINVAL", "EFAULT" …; "E<n>" for the rare ones. */
const char *errno_name(int error);
/*
 * Whether a call's result is a refusal rather than an answer: -EPERM,
 * -EACCES or -ENOSYS, which no valid call of the vDSO's functions or
 * their syscalls returns, but a seccomp filter or a sandbox does.  Such a
 * result is reported as the error it is, never timed or compared.
 */
bool syscall_refused(long result);

/* Names of clock ids 0..11 ("REALTIME" …), "INVALID(n)" otherwise. */
const char *clock_id_name(char *buf, size_t size, long clock);
/* Accepts a name (any case, with or without "CLOCK_") or a number. */
bool clock_id_parse(const char *text, long *clock);

/*
 * The tool's names for the library's functions ("clock_gettime", …,
 * "thread_pointer"): stable keys of the JSON output and of --functions.
 */
const char *cli_func_name(enum vdsokit_func fn);
/* Also accepts "tp" for the thread pointer; false if unknown. */
bool cli_func_parse(const char *text, enum vdsokit_func *fn);

/* ---------------------------------------------------------------------- */
/* The vDSO's stack use (stack_use.c, on stack_probe.c): info and doctor   */
/* ---------------------------------------------------------------------- */

#include "stack_probe.h"

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

/*
 * One fact about the host, read from /proc or /sys: either known, with its
 * value, or unknown with the reason (the file and the errno that kept it
 * from being read; error 0: the file was read but does not say).  No
 * command invents a default for an unknown fact: text says
 * fact_text()'s "unknown (PATH: reason)", JSON says null.
 */
struct host_fact {
	bool known;
	long long value;           /* a numeric fact                         */
	char text[256];            /* a text fact (numeric: the number)      */
	char source[80];           /* the file it comes from                 */
	int error;                 /* unknown: the errno of the read, or 0   */
};
/* The value, or "unknown (/proc/self/status: No such file or directory)". */
const char *fact_text(const struct host_fact *f);
/* Why f is unknown: "/proc/self/status: No such file or directory". */
const char *fact_reason(const struct host_fact *f);
/* "key": the text or number, null when unknown. */
void json_kv_fact(struct json_writer *w, const char *key, const struct host_fact *f);
void json_kv_fact_int(struct json_writer *w, const char *key, const struct host_fact *f);

/* One line of /proc/self/maps that names a vDSO-related mapping. */
struct vdso_mapping {
	uintptr_t start, end;
	char perms[8];
	char name[32];             /* "[vdso]", "[vvar]", "[vvar_vclock]"… */
};

#define HOST_MAX_MAPPINGS 16

/*
 * The one place that reads what the commands report about the host
 * (report, info, bench, verify, doctor): each fact measured or unknown
 * with its reason.  doctor_env.c draws doctor's inferences (emulators,
 * tools, hypervisor) on top.
 */
struct host_facts {
	char kernel_release[65];   /* struct utsname fields: 65 on Linux    */
	char kernel_version[65];
	char machine[65];          /* uname -m, the kernel's (see host.c)   */
	struct host_fact uname;    /* known, or why uname failed            */
	bool linux32_personality;  /* setarch i686: uname -m would say i686 */
	struct host_fact clocksource;            /* current one (sysfs)     */
	struct host_fact available_clocksources;
	struct host_fact cpu_model;              /* /proc/cpuinfo           */
	unsigned long auxv_sysinfo_ehdr; /* AT_SYSINFO_EHDR, 0 if none      */
	/* /proc/self/maps: known, value = the count of vDSO-related lines. */
	struct host_fact maps;
	struct vdso_mapping mappings[HOST_MAX_MAPPINGS];
	unsigned mapping_count;
	/* /proc/self/status */
	struct host_fact process_name, seccomp_mode, seccomp_filters;
	/* Time namespace: ours and init's, and the offsets (whole seconds). */
	struct host_fact time_ns, init_time_ns;
	struct host_fact monotonic_offset_s, boottime_offset_s;
};
void host_facts_read(struct host_facts *h);
/* "6.12.0 x86_64" (uname -r, -m), or "(kernel unknown: uname: Operation not permitted)". */
const char *host_kernel_text(const struct host_facts *h);
/* "host": {...} for a JSON document (init_result: what vdsokit_init() said). */
void json_host(struct json_writer *w, const struct host_facts *h, int init_result);
/* The facts that could not be read, one line each ("  name: reason"); false if none. */
bool host_print_unknowns(FILE *out, const struct host_facts *h, const char *indent);

/*
 * This process's time-namespace offsets against the initial namespace
 * (MONOTONIC, MONOTONIC_RAW and _COARSE shift by monotonic_ns, BOOTTIME by
 * boottime_ns); false, and zeros, when /proc/self/timens_offsets is
 * unreadable (no time namespaces: no offsets either).
 */
struct timens_offsets {
	int64_t monotonic_ns, boottime_ns;
};
bool timens_offsets_read(struct timens_offsets *o);

/* Fills up to max entries; returns how many (0 if maps is unreadable). */
unsigned vdso_mappings_read(struct vdso_mapping *maps, unsigned max);

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
/* CLOCK_MONOTONIC in ns, through the libc. */
double bench_now_ns(void);

/*
 * report's quick benchmark (report.c), shared with metrics: the calls
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

/* ---------------------------------------------------------------------- */
/* Image inventory (image_print.c), shared by info and inspect             */
/* ---------------------------------------------------------------------- */

/*
 * The version needs (DT_VERNEED) of an image (verneed.c): what libvdsokit's
 * parser leaves out, since a vDSO needs no other library, read with the
 * same bounds checks for inspect of any shared object.
 */
#define IMAGE_VERNEED_MAX 512
struct image_verneed {
	unsigned index;            /* vna_other: the versym index that names it */
	unsigned flags;            /* vna_flags                                 */
	uint32_t hash;             /* vna_hash                                  */
	const char *name;          /* GLIBC_2.2.5                               */
	const char *file;          /* vn_file: libc.so.6                        */
};
struct image_verneeds {
	bool present;              /* DT_VERNEED is there                       */
	unsigned files, count, dropped; /* dropped: past IMAGE_VERNEED_MAX     */
	struct image_verneed items[IMAGE_VERNEED_MAX];
};
/* 0 (present false when none), or -1 when the table is malformed. */
int image_verneed_read(const struct vdsokit_image *img, struct image_verneeds *out);
const struct image_verneed *image_verneed_find(const struct image_verneeds *v, int index);

/*
 * ELF header facts, build-id, hash tables, version definitions and needs,
 * and every dynamic symbol, in readelf's words (FUNC, GLOBAL, UND,
 * name@@VERSION, and name@VERSION for a version needed from a library).
 */
void image_print_text(FILE *out, const struct vdsokit_image *img);
/* The same as members ("elf", "build_id", "hash_tables", …) of the open object. */
void image_print_json(struct json_writer *w, const struct vdsokit_image *img);
/*
 * Where an ELF file's PT_LOAD segments end (the largest p_offset + p_filesz),
 * read from its own headers (image_file.c); false when the headers cannot
 * be read or there is no PT_LOAD.
 */
bool image_load_span(const unsigned char *data, size_t size, uint64_t *span);

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

#endif /* VDSOKIT_CLI_H */
