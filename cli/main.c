/* SPDX-License-Identifier: MIT */
/*
 * vdsokit: entry point.  Picks the subcommand and hands it the rest of the
 * command line; everything else lives in one file per subcommand.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/cleanup.h"

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
	{ "metrics", cmd_metrics, "report's figures and doctor's findings for Prometheus" },
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

/* The subcommand running, for the message about a failed stdout. */
static const char *command_name;

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
		if (argc > 2) {
			fprintf(stderr, "%s: %s takes no argument ('%s' is extra)\nTry '%s --help'.\n",
				CLI_PROGRAM, first, argv[2], CLI_PROGRAM);
			return CLI_EXIT_USAGE;
		}
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
	command_name = c->name;
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
 * stdout goes through this writer, which keeps the reason of the first
 * write that failed: stdio keeps only an error flag, and errno has moved
 * on by the time the command returns ("Input/output error" for a full
 * disk).  ENOSPC for /dev/full, EBADF for a closed stdout, EPIPE for a
 * closed pipe (SIGPIPE is ignored) are then named as they are.
 */
static int stdout_error;

static ssize_t stdout_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(STDOUT_FILENO, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!stdout_error)
				stdout_error = n < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)size;
}

static void use_stdout_writer(void)
{
	static const cookie_io_functions_t io = { .write = stdout_write };
	FILE *f = fopencookie(NULL, "w", io);
	if (!f)
		return;   /* plain stdout: the reason may then be EIO */
	/* As stdio would: a terminal sees each line as it is printed. */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

/*
 * The one way out: a full disk, a closed stdout or a closed pipe (with
 * SIGPIPE ignored) must not look like success, whatever the command.
 */
static int close_stdout(int status)
{
	bool failed = ferror(stdout);
	errno = 0;
	int err = fflush(stdout) != 0 ? errno : 0;
	if (fclose(stdout) != 0 && !err)
		err = errno;
	if (stdout_error)
		err = stdout_error;
	else if (failed && !err)
		err = EIO;
	if (!err)
		return status;
	fprintf(stderr, "%s%s%s: error writing the output: %s\n", CLI_PROGRAM,
		command_name ? " " : "", command_name ? command_name : "", strerror(err));
	return status ? status : CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	hold_closed_std_fds();
	/*
	 * A closed pipe and a file-size limit are errors to report (exit 2,
	 * vdsokit(1)), not deaths: a death by SIGXFSZ would leave the
	 * temporary file of dump -o or --svg behind.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	/* Ctrl-C, kill, a closed terminal: the file being written goes, 128 + signal. */
	cleanup_install();
	use_stdout_writer();
	return close_stdout(run(argc, argv));
}
