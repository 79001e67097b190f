/* SPDX-License-Identifier: MIT */
/*
 * vdsokit: entry point.  Picks the subcommand and hands it the rest of the
 * command line; everything else lives in one file per subcommand.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct command {
	const char *name;
	cli_command_fn *run;
	const char *summary;
};

static const struct command commands[] = {
	{ "report",  cmd_report,  "one screen: kernel, clocksource, vDSO, paths, short bench (default)" },
	{ "info",    cmd_info,    "inventory of this process's vDSO (symbols, versions, pages)" },
	{ "inspect", cmd_inspect, "inventory of a vDSO image file of any architecture" },
	{ "dump",    cmd_dump,    "write the in-memory vDSO image to a file" },
	{ "bench",   cmd_bench,   "ns/call per function and clock: library, libc, syscall, vDSO" },
	{ "compare", cmd_compare, "before/after table (or syscall vs vDSO) from bench JSON" },
	{ "verify",  cmd_verify,  "check vDSO results against the syscall" },
	{ "abi",     cmd_abi,     "what bad input does: syscall vs vDSO vs library" },
	{ "doctor",  cmd_doctor,  "explain why a call is not on its fast path" },
};

#define COMMAND_COUNT (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s [COMMAND] [OPTIONS]\n"
		"       %s COMMAND --help\n"
		"       %s --version\n"
		"\n"
		"Finds the Linux vDSO, shows what it offers, how each call is served and\n"
		"how fast, next to the libc and the raw syscall.\n"
		"\nCommands:\n", CLI_PROGRAM, CLI_PROGRAM, CLI_PROGRAM);
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(out, "  %-8s  %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\nExit status: 0 ok, 1 a check failed, 2 usage or input error.\n"
		"Without a command, runs `%s report`.\n", CLI_PROGRAM);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		char *report_argv[] = { (char *)"report", NULL };
		return cmd_report(1, report_argv);
	}
	const char *first = argv[1];
	if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
		print_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
		printf("%s %s (libvdsokit %s, %s)\n", CLI_PROGRAM, VDSOKIT_VERSION_STRING,
		       VDSOKIT_VERSION_STRING, vdsokit_arch_name());
		return CLI_EXIT_OK;
	}
	if (strcmp(first, "help") == 0) {
		if (argc < 3) {
			print_usage(stdout);
			return CLI_EXIT_OK;
		}
		const struct command *c = find_command(argv[2]);
		if (!c) {
			fprintf(stderr, "%s: unknown command '%s'\n", CLI_PROGRAM, argv[2]);
			return CLI_EXIT_USAGE;
		}
		char *help_argv[] = { (char *)c->name, (char *)"--help", NULL };
		return c->run(2, help_argv);
	}
	if (first[0] == '-') {
		fprintf(stderr, "%s: unknown option '%s'\nTry '%s --help'.\n",
			CLI_PROGRAM, first, CLI_PROGRAM);
		return CLI_EXIT_USAGE;
	}
	const struct command *c = find_command(first);
	if (!c) {
		fprintf(stderr, "%s: unknown command '%s'\nTry '%s --help'.\n",
			CLI_PROGRAM, first, CLI_PROGRAM);
		return CLI_EXIT_USAGE;
	}
	return c->run(argc - 1, argv + 1);
}

/*
 * A closed descriptor 0, 1 or 2 would be handed to the next file opened
 * (dump's temporary file would receive the report).  Hold the slot with
 * /dev/null opened so that every read or write on it fails with EBADF:
 * the output is still known to be lost, and nothing lands in a stranger.
 */
static void hold_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int held = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY));
		if (held >= 0 && held != fd) {
			dup2(held, fd);
			close(held);
		}
	}
}

/*
 * The one way out: a full disk, a closed stdout or a closed pipe (with
 * SIGPIPE ignored) must not look like success, whatever the command.
 */
static int close_stdout(int status)
{
	/*
	 * A write that failed during the command left only the error flag:
	 * errno has moved on since.  The final flush and close give a fresh
	 * reason (a full device fails again); EIO where they cannot.
	 */
	bool failed_before = ferror(stdout);
	errno = 0;
	int err = fflush(stdout) != 0 ? errno : 0;
	if (fclose(stdout) != 0 && !err)
		err = errno;
	if (failed_before && !err)
		err = EIO;
	if (!err)
		return status;
	fprintf(stderr, "%s: error writing the output: %s\n", CLI_PROGRAM, strerror(err));
	return status ? status : CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	hold_closed_std_fds();
	return close_stdout(run(argc, argv));
}
