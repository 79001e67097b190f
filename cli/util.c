/* SPDX-License-Identifier: MIT */
/*
 * Option parsing and file reading shared by every subcommand, so that all
 * of them word their errors and exit codes the same way (the messages
 * themselves: output/messages.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output/output.h"

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	static char **parsing;
	char fmt[64];

	if (parsing != argv) {
		parsing = argv;
		optind = 0;     /* glibc: a full reset, for a fresh argv */
	}
	opterr = 0;
	/* ':' first: report a missing value as ':' instead of '?'. */
	snprintf(fmt, sizeof(fmt), ":%s", shortopts);
	int prev = optind ? optind : 1;
	int c = getopt_long(argc, argv, fmt, longopts, NULL);
	if (c == ':') {
		/* The option is the last word: as typed, "--time" or "-o". */
		const char *opt = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
		cli_usage_error(argv[0], "option '%s' needs a value", opt);
		return '?';
	}
	if (c == '?') {
		const char *word = prev < argc ? argv[prev] : "?";
		if (strncmp(word, "--", 2) == 0) {
			/* A known long option given "=value" it does not take? */
			size_t len = strcspn(word + 2, "=");
			for (const struct option *o = longopts; o->name; o++)
				if (word[2 + len] == '=' && strlen(o->name) == len &&
				    strncmp(o->name, word + 2, len) == 0) {
					cli_usage_error(argv[0], "option '--%s' takes no value", o->name);
					return '?';
				}
			cli_usage_error(argv[0], "unknown option '%s'", word);
		} else {
			cli_usage_error(argv[0], "unknown option '-%c'", optopt ? optopt : '?');
		}
		return '?';
	}
	return c;
}

bool cli_parse_long(const char *cmd, const char *option, const char *text,
		    long min, long max, long *value)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 0);
	if (errno || end == text || *end || v < min || v > max) {
		cli_usage_error(cmd, "%s: '%s' is not an integer in [%ld, %ld]",
				option, text, min, max);
		return false;
	}
	*value = v;
	return true;
}

bool cli_parse_double(const char *cmd, const char *option, const char *text,
		      double min, double max, double *value)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v < min || v > max) {
		cli_usage_error(cmd, "%s: '%s' is not a number in [%g, %g]",
				option, text, min, max);
		return false;
	}
	*value = v;
	return true;
}

unsigned char *cli_read_file(const char *path, size_t max_size, size_t *size, int *error)
{
	/* "-" is descriptor 0 itself: /dev/stdin would reopen it, and fail on a socket. */
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*error = errno;
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		*error = EISDIR;
		goto fail_fd;
	}
	/*
	 * Read until EOF rather than trusting st_size: pipes, /proc files.  The
	 * buffer may grow to max_size + 1 bytes, so that a file of exactly
	 * max_size is read whole and only a larger one hits the limit.
	 */
	size_t limit = max_size + 1, capacity = limit < 65536 ? limit : 65536, used = 0;
	unsigned char *buf = malloc(capacity + 1);
	if (!buf) {
		*error = ENOMEM;
		goto fail_fd;
	}
	for (;;) {
		if (used == capacity) {
			if (capacity >= limit) {
				*error = EFBIG;
				goto fail_buf;
			}
			capacity = capacity * 2 > limit ? limit : capacity * 2;
			unsigned char *bigger = realloc(buf, capacity + 1);
			if (!bigger) {
				*error = ENOMEM;
				goto fail_buf;
			}
			buf = bigger;
		}
		ssize_t n = read(fd, buf + used, capacity - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*error = errno;
			goto fail_buf;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	if (!is_stdin)
		close(fd);
	buf[used] = 0;   /* text readers (JSON) may rely on it */
	*size = used;
	return buf;

fail_buf:
	free(buf);
fail_fd:
	if (!is_stdin)
		close(fd);
	return NULL;
}

const char *cli_read_error(const char *path, int error, const char *too_big)
{
	if (error == EFBIG)
		return too_big;
	if (strcmp(path, "-") == 0 && error == EBADF)
		return "stdin is closed";
	return strerror(error);
}
