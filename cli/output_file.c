/* SPDX-License-Identifier: MIT */
/*
 * Files the tool writes (dump -o, --svg): never destroy what it did not
 * create.  A regular file (or one that does not exist yet) is written to a
 * temporary file beside it and renamed over it only once every byte is
 * out, so a failed write leaves the old file as it was and removes only the
 * temporary.  A symlink is followed, so the link survives and its target is
 * replaced the same way.  Anything else (a device, a FIFO, a socket) cannot
 * be replaced by a rename: it is written directly and never removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Where the bytes finally belong: PATH, or the file a symlink PATH names. */
static char *final_target(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		char *resolved = realpath(path, NULL);
		if (resolved)
			return resolved;
		/* A dangling link: writing through it creates its target. */
	}
	return strdup(path);
}

static int open_direct(struct cli_output_file *o, const char *cmd)
{
	int fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0 && !(o->stream = fdopen(fd, "w")))
		close(fd);
	if (!o->stream) {
		int err = errno;
		cli_output_abort(o);
		return cli_error(cmd, o->path, "%s", strerror(err));
	}
	return 0;
}

int cli_output_open(struct cli_output_file *o, const char *cmd, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->cmd = cmd;
	o->target = final_target(path);
	if (!o->target)
		return cli_error(cmd, path, "out of memory");

	struct stat st;
	bool exists = stat(o->target, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		cli_output_abort(o);
		return cli_error(cmd, path, "is a directory");
	}
	if ((exists && !S_ISREG(st.st_mode)) || (!exists && errno != ENOENT))
		return open_direct(o, cmd);
	/* A rename would replace a file we may not write: refuse as open() would. */
	if (exists && access(o->target, W_OK) != 0) {
		int err = errno;
		cli_output_abort(o);
		return cli_error(cmd, path, "%s", strerror(err));
	}
	if (!exists) {
		/* A dangling symlink: follow it by writing through it. */
		struct stat lst;
		if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
			return open_direct(o, cmd);
	}

	size_t length = strlen(o->target);
	o->temp = malloc(length + sizeof(".tmp-XXXXXX"));
	if (!o->temp) {
		cli_output_abort(o);
		return cli_error(cmd, path, "out of memory");
	}
	memcpy(o->temp, o->target, length);
	memcpy(o->temp + length, ".tmp-XXXXXX", sizeof(".tmp-XXXXXX"));
	int fd = mkostemp(o->temp, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		free(o->temp);
		o->temp = NULL;   /* not created: nothing to remove */
		cli_output_abort(o);
		return cli_error(cmd, path, "%s", strerror(err));
	}
	/* mkstemp makes 0600: keep an existing file's mode, give a new one 0644 less umask. */
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0644 & ~mask;
	}
	if (fchmod(fd, mode) != 0 || !(o->stream = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		cli_output_abort(o);
		return cli_error(cmd, path, "%s", strerror(err));
	}
	return 0;
}

int cli_output_commit(struct cli_output_file *o)
{
	int err = cli_stream_error(o->stream);
	if (fclose(o->stream) != 0 && !err)
		err = errno;
	o->stream = NULL;
	if (!err && o->temp && rename(o->temp, o->target) != 0)
		err = errno;
	if (err) {
		cli_output_abort(o);
		return cli_error(o->cmd, o->path, "cannot write: %s", strerror(err));
	}
	free(o->temp);
	free(o->target);
	o->temp = o->target = NULL;
	return 0;
}

void cli_output_abort(struct cli_output_file *o)
{
	if (o->stream)
		fclose(o->stream);
	o->stream = NULL;
	if (o->temp)
		unlink(o->temp);   /* ours: the only file this tool removes */
	free(o->temp);
	free(o->target);
	o->temp = o->target = NULL;
}
