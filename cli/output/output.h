/* SPDX-License-Identifier: MIT */
/*
 * The output layer: text escaped for where it goes, the JSON writer and
 * reader, aligned tables, SVG bar charts, number and name formatting,
 * files the tool writes, and the progress line on stderr.  No command
 * logic: the commands hand it values.
 */
#ifndef VDSOKIT_CLI_OUTPUT_H
#define VDSOKIT_CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "vdsokit.h"

/*
 * The tool's messages (messages.c), for every command and layer.
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
/* 0, or the errno of a write to stream that failed (flushing it first). */
int cli_stream_error(FILE *stream);

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
/* progress_clear() for a signal handler: one write(2), only in the drawing process. */
void progress_erase_from_signal(void);
void progress_end(void);

/*
 * The clock the tool times itself with (clock.c): in ns, and one that no
 * preloaded object can replace: the library's, or the syscall's once
 * bench_clock_use_syscall() is called (an --image file runs in the
 * library's place).  0 when it cannot be read.
 */
double bench_clock_ns(clockid_t clock);
/* CLOCK_MONOTONIC in ns, as bench_clock_ns. */
double bench_now_ns(void);
void bench_clock_use_syscall(void);

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
/*
 * s as text_write(TEXT_TERMINAL) shows it, for a printf("%s") of text that
 * came from outside (a path the user gave): in one of a few static buffers,
 * reused in turn, so a few may stand in one call.  NULL stays NULL.
 */
const char *text_shown(const char *s);
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

/*
 * Not an errno: a reference call's result where a seccomp filter kills its
 * syscall (SECCOMP_RET_KILL, systemd's SystemCallFilter= default).  The
 * syscall is then never made: the tool learns it from a child that made
 * it once and died by SIGSYS (checks/reference.h).  syscall_refused counts
 * it as a refusal, errno_name says "SIGSYS".
 */
#define REFERENCE_KILLED (-4095)

/* "EINVAL", "EFAULT" …; "E<n>" for the rare ones; "SIGSYS" for REFERENCE_KILLED. */
const char *errno_name(int error);
/* "SIGSEGV", "SIGBUS", …; "SIG<n>" for the rare ones. */
const char *signal_name(int sig, char *buf, size_t size);
/*
 * Whether a call's result (0 / a value / -errno) is a refusal rather than
 * an answer: -EPERM, -EACCES or -ENOSYS, which no valid call of the vDSO's
 * functions or their syscalls returns, but a seccomp filter or a sandbox
 * does, or REFERENCE_KILLED.  Such a result is reported as the error it
 * is, never timed or compared.
 */
bool syscall_refused(long result);

/* Names of clock ids 0..11 ("REALTIME" …), "INVALID(n)" otherwise. */
const char *clock_id_name(char *buf, size_t size, long clock);
/* Accepts a name (any case, with or without "CLOCK_") or a number. */
bool clock_id_parse(const char *text, long *clock);

/*
 * The kernel's CPU-time clock ids (include/linux/posix-timers.h): the pid
 * complemented and shifted left by 3, a thread flag (4) and the clock kind
 * (0 PROF, 1 VIRT, 2 SCHED) in the low bits.  pid 0 means "myself".
 */
enum cpu_clock_kind { CPUCLOCK_KIND_PROF = 0, CPUCLOCK_KIND_VIRT = 1, CPUCLOCK_KIND_SCHED = 2 };
clockid_t cpu_clock_id(pid_t pid, bool per_thread, enum cpu_clock_kind kind);

/* Nanoseconds of a timespec, saturating instead of overflowing. */
int64_t timespec_ns(const struct vdsokit_timespec *ts);

/*
 * The tool's names for the library's functions ("clock_gettime", …,
 * "thread_pointer"): stable keys of the JSON output and of --functions.
 */
const char *cli_func_name(enum vdsokit_func fn);
/* Also accepts "tp" for the thread pointer; false if unknown. */
bool cli_func_parse(const char *text, enum vdsokit_func *fn);

#endif /* VDSOKIT_CLI_OUTPUT_H */
