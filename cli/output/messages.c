/* SPDX-License-Identifier: MIT */
/*
 * The tool's messages on stderr, worded the same way by every command and
 * layer, and the check of a stream written to.  In output/ beside the
 * progress line, which a message clears before it prints.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "output/output.h"

static void vmessage(const char *cmd, const char *input, const char *fmt, va_list ap)
{
	progress_clear();
	/* Lines already printed come first: `> log 2>&1` must not split one. */
	fflush(stdout);
	fprintf(stderr, "%s", CLI_PROGRAM);
	if (cmd)
		fprintf(stderr, " %s", cmd);
	fprintf(stderr, ": ");
	if (input)
		fprintf(stderr, "%s: ", text_shown(input));
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *input, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(cmd, input, fmt, ap);
	va_end(ap);
	return CLI_EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(cmd, NULL, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s %s --help'.\n", CLI_PROGRAM, cmd);
	return CLI_EXIT_USAGE;
}

void cli_warning(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	progress_clear();
	fflush(stdout);   /* as vmessage: whole stdout lines before the warning */
	fprintf(stderr, "%s %s: warning: ", CLI_PROGRAM, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_stream_error(FILE *stream)
{
	/* errno still holds the failed write's reason: nothing ran since that touches it. */
	if (ferror(stream))
		return errno ? errno : EIO;
	errno = 0;
	if (fflush(stream) != 0)
		return errno ? errno : EIO;
	return 0;
}
