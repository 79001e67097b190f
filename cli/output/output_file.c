/* SPDX-License-Identifier: MIT */
/*
 * Files the tool writes (dump -o, --svg), with the semantics vdsokit(1)
 * promises under OUTPUT FILES:
 *
 *   - "-" is stdout, as "-" is stdin for the files it reads.
 *   - A new file, or an existing regular file with one link whose owner
 *     and group the temporary can take, is written to a temporary file in
 *     the same directory and renamed over the target once every byte is
 *     out: readers see the old file or the new one, and a failed write
 *     leaves the old one as it was and removes only the temporary.  Of the
 *     old file the new one keeps exactly the owner, the group and the mode
 *     (open_temp); not its extended attributes (ACLs, security labels,
 *     capabilities), timestamps or inode.  A rename refused because the
 *     target is a mount point (a bind-mounted file: EBUSY) or on another
 *     mount (EXDEV) copies the finished temporary into it in place.
 *   - Otherwise (a hard link, another user's file, a directory the tool may
 *     not create files in, a device, a FIFO) it is written in place: opened
 *     without O_TRUNC, overwritten from the start and cut to the new length
 *     at the end, so the old contents survive until the writing starts and
 *     a refused open changes nothing.  A failed write leaves it partly
 *     written, and says so.
 *   - A path that names an open file descriptor (/dev/stdout, /dev/stderr,
 *     /dev/fd/N, /proc/self/fd/N, or a symlink to one) is written through
 *     that descriptor, at its offset: `{ echo a; vdsokit metrics -o
 *     /dev/stdout; } >>log` appends, as a shell redirection would.
 *   - A symlink is followed, so the link survives and its target is
 *     written by the rules above; a dangling one names the file to create,
 *     through a temporary beside it: a failed write never removes the link.
 *   - The temporary (or a file created in place) is removed on error, on
 *     exit and on every signal whose default action ends the process
 *     (output/cleanup.c).
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
#include "output/cleanup.h"

#define MAX_LINK_HOPS 40

static int fail(struct cli_output_file *o, const char *path, int err)
{
	cli_output_abort(o);
	return cli_error(o->cmd, path, "%s", strerror(err));
}

/*
 * The descriptor a path names without opening anything: 1 for
 * /dev/stdout, N for /dev/fd/N or /proc/self/fd/N; -1 for any other path.
 */
static int named_fd(const char *path)
{
	static const char *const prefixes[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/" };
	if (strcmp(path, "/dev/stdout") == 0)
		return STDOUT_FILENO;
	if (strcmp(path, "/dev/stderr") == 0)
		return STDERR_FILENO;
	char own[40];
	snprintf(own, sizeof(own), "/proc/%d/fd/", (int)getpid());
	const char *digits = NULL;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]) && !digits; i++)
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			digits = path + strlen(prefixes[i]);
	if (!digits && strncmp(path, own, strlen(own)) == 0)
		digits = path + strlen(own);
	if (!digits || !*digits)
		return -1;
	char *end;
	long fd = strtol(digits, &end, 10);
	return *end || fd < 0 || fd > INT_MAX ? -1 : (int)fd;
}

/* The next name in a symlink chain, relative links taken from the link's directory. */
static char *link_step(const char *path)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = 0;
	if (target[0] == '/')
		return strdup(target);
	char *copy = strdup(path);
	if (!copy)
		return NULL;
	char *joined = malloc(strlen(copy) + strlen(target) + 2);
	if (joined)
		sprintf(joined, "%s/%s", dirname(copy), target);
	free(copy);
	return joined;
}

/*
 * Follows PATH's symlinks name by name: the descriptor one of them names
 * (named_fd), or -1 with *last set to the last name of the chain (a
 * dangling link's: the file it names), malloc'd.
 */
static int follow(const char *path, char **last)
{
	char *name = strdup(path);
	*last = NULL;
	for (int hop = 0; name && hop < MAX_LINK_HOPS; hop++) {
		int fd = named_fd(name);
		struct stat st;
		if (fd >= 0) {
			free(name);
			return fd;
		}
		if (lstat(name, &st) != 0 || !S_ISLNK(st.st_mode))
			break;
		char *next = link_step(name);
		if (!next)
			break;
		free(name);
		name = next;
	}
	*last = name;
	return -1;
}

/* Where the bytes finally belong: PATH, or the file a symlink PATH names. */
static char *final_target(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		char *resolved = realpath(path, NULL);
		if (resolved)
			return resolved;
		/* A dangling link: the name at its end is the file to create. */
		char *last;
		if (follow(path, &last) < 0 && last)
			return last;
		free(last);
	}
	return strdup(path);
}

/* Writes through descriptor fd, where it stands: nothing created, nothing cut. */
static int open_descriptor(struct cli_output_file *o, int fd)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (copy < 0)
		return fail(o, o->path, errno == EBADF ? EBADF : errno);
	int mode = fcntl(copy, F_GETFL);
	if (mode >= 0 && (mode & O_ACCMODE) == O_RDONLY) {
		close(copy);
		return fail(o, o->path, EBADF);
	}
	if (!(o->stream = fdopen(copy, "w"))) {
		int err = errno;
		close(copy);
		return fail(o, o->path, err);
	}
	return 0;
}



/* Opens the target itself, keeping its contents until the writing starts. */
static int open_in_place(struct cli_output_file *o, bool exists)
{
	/* No O_EXCL: it would refuse the dangling symlink that names the file to create. */
	int fd = open(o->target, O_WRONLY | O_CLOEXEC | (exists ? 0 : O_CREAT), 0644);
	if (fd >= 0 && !exists) {
		o->created = true;   /* ours: removed again if the writing fails */
		cleanup_remember(o->target);
	}
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
	if (fd >= 0)
		cleanup_remember(o->temp);
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
		cleanup_forget();
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
	char *last;
	int fd = follow(path, &last);
	free(last);
	if (fd >= 0)
		return open_descriptor(o, fd);
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
	int err = open_temp(o, exists ? &st : NULL);
	if (err == ENOMEM)
		return fail(o, path, err);
	if (err)
		return open_in_place(o, exists);   /* no temporary here: the file itself */
	return 0;
}

/*
 * rename() refused to replace the target: it is a mount point (a bind
 * mount of a file: EBUSY) or on another mount than its directory (EXDEV).
 * The finished temporary is copied into the target itself, as any file
 * that cannot be replaced is written: in place, cut to the new length.
 * 0, or the errno; *partial when the target may be left partly written.
 */
static int copy_into_target(const struct cli_output_file *o, bool *partial)
{
	int in = open(o->temp, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	int out = open(o->target, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		int err = errno;
		close(in);
		return err;
	}
	char buf[65536];
	off_t total = 0;
	int err = 0;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : 0;
			break;
		}
		for (ssize_t done = 0; done < n && !err;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno != EINTR)
				err = errno;
			else if (w > 0)
				done += w;
		}
		*partial = true;
		if (err)
			break;
		total += n;
	}
	struct stat st;
	if (!err && fstat(out, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(out, total) != 0)
		err = errno;
	if (close(out) != 0 && !err)
		err = errno;
	close(in);
	return err;
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
	bool partial = !o->temp && !o->created && o->truncate;
	if (!err && o->temp && rename(o->temp, o->target) != 0) {
		err = errno;
		if (err == EBUSY || err == EXDEV) {
			err = copy_into_target(o, &partial);
			if (!err)
				unlink(o->temp);   /* copied: the temporary has served */
		}
	}
	if (err) {
		cli_output_abort(o);
		return cli_error(o->cmd, o->path, "cannot write: %s%s", strerror(err),
				 partial ? " (written in place: the file is left partly written)" : "");
	}
	cleanup_forget();
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
	cleanup_forget();
	free(o->temp);
	free(o->target);
	o->temp = o->target = NULL;
}

int cli_output_check(const char *cmd, const char *path)
{
	if (strcmp(path, "-") == 0)
		return 0;
	char *last;
	int fd = follow(path, &last);
	if (fd >= 0) {
		free(last);
		int mode = fcntl(fd, F_GETFL);
		if (mode < 0 || (mode & O_ACCMODE) == O_RDONLY)
			return cli_error(cmd, path, "%s", strerror(EBADF));
		return 0;
	}
	char *target = last ? last : strdup(path);
	if (!target)
		return cli_error(cmd, path, "%s", strerror(ENOMEM));
	struct stat st;
	int err = 0;
	if (stat(target, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			err = EISDIR;
		else if (access(target, W_OK) != 0)
			err = errno;
	} else if (errno != ENOENT) {
		err = errno;
	} else {
		char *copy = strdup(target);
		if (!copy)
			err = ENOMEM;
		else if (access(dirname(copy), W_OK | X_OK) != 0)
			err = errno;
		free(copy);
	}
	free(target);
	return err ? cli_error(cmd, path, "%s", err == EISDIR ? "is a directory" : strerror(err)) : 0;
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
					       "refusing to overwrite it", option, text_shown(path),
					       text_shown(inputs[i]));
	}
	return 0;
}
