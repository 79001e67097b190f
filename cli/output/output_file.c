/* SPDX-License-Identifier: MIT */
/*
 * Files the tool writes (dump -o, --svg), with the semantics vdsokit(1)
 * promises under OUTPUT FILES:
 *
 *   - "-" is stdout, as "-" is stdin for the files it reads.
 *   - A new file, or an existing regular file that a rename can replace
 *     without changing anything but its contents (same owner and group,
 *     one link), is written to a temporary file in the same directory and
 *     renamed over the target once every byte is out: readers see the old
 *     file or the new one, and a failed write leaves the old one as it was
 *     and removes only the temporary.
 *   - Otherwise (a hard link, another user's file, a directory the tool may
 *     not create files in, a device, a FIFO) it is written in place: opened
 *     without O_TRUNC, overwritten from the start and cut to the new length
 *     at the end, so the old contents survive until the writing starts and
 *     a refused open changes nothing.  A failed write leaves it partly
 *     written, and says so.
 *   - A symlink is followed, so the link survives and its target is
 *     written by the rules above.
 *   - A file the command reads is never its output (cli_output_not_input).
 *
 * main() ignores SIGXFSZ, so a file-size limit is EFBIG from write(), an
 * error message and a removed temporary, not a death that leaves it behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output/output.h"

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

static int fail(struct cli_output_file *o, const char *path, int err)
{
	cli_output_abort(o);
	return cli_error(o->cmd, path, "%s", strerror(err));
}

/* Opens the target itself, keeping its contents until the writing starts. */
static int open_in_place(struct cli_output_file *o, bool exists)
{
	/* No O_EXCL: it would refuse the dangling symlink that names the file to create. */
	int fd = open(o->target, O_WRONLY | O_CLOEXEC | (exists ? 0 : O_CREAT), 0644);
	if (fd >= 0 && !exists)
		o->created = true;   /* ours: removed again if the writing fails */
	if (fd < 0)
		return fail(o, o->path, errno);
	struct stat st;
	o->truncate = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (!(o->stream = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		return fail(o, o->path, err);
	}
	return 0;
}

/*
 * A temporary file in the target's directory, with the target's owner and
 * mode (a new target: 0644 less the umask); 0, or the errno that rules the
 * temporary out.  The short fixed name fits wherever the target's name does.
 */
static int open_temp(struct cli_output_file *o, const struct stat *existing)
{
	char *copy = strdup(o->target);
	if (!copy)
		return ENOMEM;
	const char *dir = dirname(copy);
	size_t length = strlen(dir);
	o->temp = malloc(length + sizeof("/.vdsokit-XXXXXX"));
	if (!o->temp) {
		free(copy);
		return ENOMEM;
	}
	memcpy(o->temp, dir, length);
	memcpy(o->temp + length, "/.vdsokit-XXXXXX", sizeof("/.vdsokit-XXXXXX"));
	free(copy);
	int fd = mkostemp(o->temp, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		free(o->temp);
		o->temp = NULL;   /* not created: nothing to remove */
		return err;
	}
	mode_t mode;
	if (existing) {
		mode = existing->st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0644 & ~mask;
	}
	struct stat st;
	int err = 0;
	if (fstat(fd, &st) != 0)
		err = errno;
	else if (existing && (st.st_uid != existing->st_uid || st.st_gid != existing->st_gid) &&
		 fchown(fd, existing->st_uid, existing->st_gid) != 0)
		err = EPERM;   /* the rename would change the owner: write in place */
	if (!err && fchmod(fd, mode) != 0)
		err = errno;
	if (!err && !(o->stream = fdopen(fd, "w")))
		err = errno;
	if (err) {
		close(fd);
		unlink(o->temp);
		free(o->temp);
		o->temp = NULL;
	}
	return err;
}

int cli_output_open(struct cli_output_file *o, const char *cmd, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->cmd = cmd;
	if (strcmp(path, "-") == 0) {
		o->to_stdout = true;
		o->stream = stdout;
		return 0;
	}
	o->target = final_target(path);
	if (!o->target)
		return fail(o, path, ENOMEM);

	struct stat st;
	bool exists = stat(o->target, &st) == 0;
	if (!exists && errno != ENOENT)
		return fail(o, path, errno);
	if (exists && S_ISDIR(st.st_mode)) {
		cli_output_abort(o);
		return cli_error(cmd, path, "is a directory");
	}
	if (exists && !S_ISREG(st.st_mode))
		return open_in_place(o, true);
	/* Refuse what open() would refuse, before any temporary exists. */
	if (exists && access(o->target, W_OK) != 0)
		return fail(o, path, errno);
	if (exists && st.st_nlink > 1)
		return open_in_place(o, true);   /* a rename would split the links */
	if (!exists) {
		/* A dangling symlink: follow it by writing through it. */
		struct stat lst;
		if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
			return open_in_place(o, false);
	}
	int err = open_temp(o, exists ? &st : NULL);
	if (err == ENOMEM)
		return fail(o, path, err);
	if (err)
		return open_in_place(o, exists);   /* no temporary here: the file itself */
	return 0;
}

int cli_output_commit(struct cli_output_file *o)
{
	if (o->to_stdout) {
		/* main() reports a failed stdout, once, with its reason. */
		o->stream = NULL;
		return ferror(stdout) || fflush(stdout) != 0 ? CLI_EXIT_USAGE : 0;
	}
	int err = cli_stream_error(o->stream);
	if (!err && o->truncate) {
		off_t end = ftello(o->stream);
		if (end < 0 || ftruncate(fileno(o->stream), end) != 0)
			err = errno;
	}
	if (fclose(o->stream) != 0 && !err)
		err = errno;
	o->stream = NULL;
	if (!err && o->temp && rename(o->temp, o->target) != 0)
		err = errno;
	if (err) {
		bool partial = !o->temp && !o->created && o->truncate;
		cli_output_abort(o);
		return cli_error(o->cmd, o->path, "cannot write: %s%s", strerror(err),
				 partial ? " (written in place: the file is left partly written)" : "");
	}
	free(o->temp);
	free(o->target);
	o->temp = o->target = NULL;
	return 0;
}

void cli_output_abort(struct cli_output_file *o)
{
	if (o->stream && !o->to_stdout)
		fclose(o->stream);
	o->stream = NULL;
	if (o->temp)
		unlink(o->temp);   /* ours: the only files this tool removes */
	else if (o->created && o->target)
		unlink(o->target);
	free(o->temp);
	free(o->target);
	o->temp = o->target = NULL;
}

/* The file a path names ("-": stdin, or stdout as an output); false if none yet. */
static bool file_id(const char *path, bool input, struct stat *st)
{
	if (strcmp(path, "-") == 0)
		return fstat(input ? STDIN_FILENO : STDOUT_FILENO, st) == 0 && S_ISREG(st->st_mode);
	return stat(path, st) == 0;
}

int cli_output_not_input(const char *cmd, const char *option, const char *path,
			 const char *const *inputs, unsigned count)
{
	struct stat out;
	if (!file_id(path, false, &out))
		return 0;
	for (unsigned i = 0; i < count; i++) {
		struct stat in;
		if (file_id(inputs[i], true, &in) && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return cli_usage_error(cmd, "%s %s: that is the input file '%s': "
					       "refusing to overwrite it", option, path, inputs[i]);
	}
	return 0;
}
