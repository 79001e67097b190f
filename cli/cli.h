/* SPDX-License-Identifier: MIT */
/*
 * The vdsokit command-line tool's command table, and what every command
 * shares: exit codes and option parsing (util.c).
 *
 * The layers the commands are built on have a folder and a header each:
 *   output/output.h     text, JSON (written and read), tables, SVG, number
 *                       formatting, files written, the progress line,
 *                       the tool's messages on stderr
 *   host/host.h         facts about the host, each measured or unknown
 *   measure/measure.h   timing calls side by side, per-call latency, the
 *                       vDSO's stack use
 *   images/images.h     vDSO images read from files (--image, inspect)
 *   checks/checks.h     check records and verify's checks (abi.h, doctor.h,
 *                       known_findings.h beside it)
 * and commands/ holds one file per command.  A file includes the headers
 * of the layers it uses, so an edit to one rebuilds only their users.
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
#include <stdio.h>

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
 * The messages themselves, cli_error(), cli_usage_error() and
 * cli_warning(), are output/output.h's (messages.c): the layers below the
 * commands print them too.
 */

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
/* Why cli_read_file failed, in words (too_big for EFBIG). */
const char *cli_read_error(const char *path, int error, const char *too_big);

/* ---------------------------------------------------------------------- */
/* Subcommands                                                             */
/* ---------------------------------------------------------------------- */

typedef int cli_command_fn(int argc, char **argv);

cli_command_fn cmd_report;  /* commands/report.c */
cli_command_fn cmd_info;    /* commands/info.c */
cli_command_fn cmd_inspect; /* commands/inspect.c */
cli_command_fn cmd_dump;    /* commands/dump.c */
cli_command_fn cmd_bench;   /* commands/bench.c */
cli_command_fn cmd_compare; /* commands/compare.c */
cli_command_fn cmd_verify;  /* commands/verify.c */
cli_command_fn cmd_abi;     /* commands/abi.c */
cli_command_fn cmd_doctor;  /* commands/doctor.c */
cli_command_fn cmd_metrics; /* commands/metrics.c */

#endif /* VDSOKIT_CLI_H */
