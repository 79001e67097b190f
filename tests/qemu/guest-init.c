/* SPDX-License-Identifier: MIT */
/*
 * guest-init — /init of the QEMU matrix guests.
 *
 * Built static with each cross compiler and put in the initramfs as /init.
 * It prepares a minimal system (proc, sys, dev, tmp), then runs the steps
 * of /plan one after the other and reports everything on the console, where
 * the host (tests/qemu/boot) reads it back.  The console is the only channel
 * out of the guest, and kernel messages may land in the middle of it, so
 * every line the host cares about carries a marker:
 *
 *   VDSOKIT-GUEST uname <sysname> <release> <machine>
 *   VDSOKIT-RUN <id> <argv...>        a step starts
 *   <id>| <line>                      one line of its stdout/stderr
 *   VDSOKIT-DATA <id> BEGIN <bytes>   base64 of captured bytes follows,
 *   VDSOKIT-DATA <id> END             ... ending here
 *   VDSOKIT-EXIT <id> <status>        exit N | signal N | timeout | noexec
 *   VDSOKIT-DONE                      every step ran
 *
 * /plan has one step per line, words separated by blanks (no quoting):
 *
 *   run ID TIMEOUT PROG ARGS...       stdout+stderr as text lines
 *   capture ID TIMEOUT PROG ARGS...   stdout as base64 data, stderr as text
 *   send ID PATH                      a file's bytes as base64 data
 *
 * At the end the guest powers itself off: on sun4u a panic after init exits
 * loops forever instead of rebooting, and everywhere else power-off makes
 * QEMU exit at once rather than after the panic timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORDS 64
#define MAX_LINE 4096

/* Everything goes through stdio on fd 1, line-buffered, and is flushed
 * before any fork so a child's output cannot overtake ours. */
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* The kernel opens /dev/console for init only when the node exists in the
 * initramfs; create it (and everything else) ourselves so the initramfs
 * can be built without root on the host. */
static void setup_console(void)
{
	int fd;

	mkdir("/dev", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) != 0 && errno != EBUSY)
		mknod("/dev/console", S_IFCHR | 0600, makedev(5, 1));
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return; /* keep whatever fds the kernel gave us */
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void setup_filesystems(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/tmp", 01777);
	if (mount("proc", "/proc", "proc", 0, NULL) != 0)
		say("VDSOKIT-GUEST warning mount /proc: %s\n", strerror(errno));
	if (mount("sysfs", "/sys", "sysfs", 0, NULL) != 0)
		say("VDSOKIT-GUEST warning mount /sys: %s\n", strerror(errno));
	setenv("PATH", "/bin:/", 1);
	setenv("HOME", "/", 1);
	setenv("TMPDIR", "/tmp", 1);
}

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Streams base64 in 76-column lines; 'pending' holds the 0-2 bytes of an
 * incomplete group between calls. */
struct b64 {
	unsigned char pending[3];
	size_t npending;
	size_t column;
	size_t total;
};

static void b64_group(struct b64 *b, const unsigned char *in, size_t n)
{
	char out[4];

	out[0] = b64_alphabet[in[0] >> 2];
	out[1] = b64_alphabet[((in[0] & 3) << 4) | (n > 1 ? in[1] >> 4 : 0)];
	out[2] = n > 1 ? b64_alphabet[((in[1] & 15) << 2) | (n > 2 ? in[2] >> 6 : 0)] : '=';
	out[3] = n > 2 ? b64_alphabet[in[2] & 63] : '=';
	fwrite(out, 1, 4, stdout);
	b->column += 4;
	if (b->column >= 76) {
		putchar('\n');
		b->column = 0;
	}
}

static void b64_feed(struct b64 *b, const unsigned char *data, size_t len)
{
	b->total += len;
	while (len > 0) {
		b->pending[b->npending++] = *data++;
		len--;
		if (b->npending == 3) {
			b64_group(b, b->pending, 3);
			b->npending = 0;
		}
	}
}

static void b64_finish(struct b64 *b)
{
	if (b->npending > 0)
		b64_group(b, b->pending, b->npending);
	if (b->column > 0)
		putchar('\n');
	fflush(stdout);
}

/* Text lines of a step: prefixed with its id, split at newlines, with
 * over-long lines cut so a runaway program cannot flood one line. */
struct text {
	const char *id;
	char line[512];
	size_t len;
};

static void text_flush(struct text *t)
{
	printf("%s| %.*s\n", t->id, (int)t->len, t->line);
	t->len = 0;
}

static void text_feed(struct text *t, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = data[i];

		if (c == '\n') {
			text_flush(t);
		} else if (c != '\r') {
			t->line[t->len++] = c;
			if (t->len == sizeof t->line)
				text_flush(t);
		}
	}
	fflush(stdout);
}

static void text_finish(struct text *t)
{
	if (t->len > 0)
		text_flush(t);
	fflush(stdout);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report_status(const char *id, int status, int timed_out)
{
	if (timed_out)
		say("VDSOKIT-EXIT %s timeout\n", id);
	else if (WIFEXITED(status))
		say("VDSOKIT-EXIT %s exit %d\n", id, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		say("VDSOKIT-EXIT %s signal %d\n", id, WTERMSIG(status));
	else
		say("VDSOKIT-EXIT %s status %d\n", id, status);
}

/*
 * A step's time is counted as the sum of the clock's steps between reads at
 * most a second apart, each taken as between 0 and MAX_STEP_SECONDS: a
 * clock that jumps does not end a step early.  Under QEMU's q800, Linux
 * 6.1's via1 clocksource reads can come out ~5482 s ahead, for one read or
 * for good (docs/kernel-findings.md#via1-step): steps "timed out" within a
 * second of starting.
 */
#define MAX_STEP_SECONDS 2.0

/* Runs argv with its stdout (and, for text steps, stderr) on pipes, relays
 * both until the child closes them or the step's time runs out. */
static void run_step(const char *id, int capture, double timeout, char **argv)
{
	int out[2], err[2];
	pid_t pid;
	struct text text_out = { .id = id }, text_err = { .id = id };
	struct b64 data = { .npending = 0 };
	double last_read = now_seconds(), elapsed = 0;
	int timed_out = 0, status = 0;
	static char held_err[16384];
	size_t held_len = 0;

	if (pipe(out) != 0 || pipe(err) != 0) {
		say("VDSOKIT-EXIT %s noexec pipe: %s\n", id, strerror(errno));
		return;
	}
	say("VDSOKIT-RUN %s", id);
	for (char **a = argv; *a; a++)
		say(" %s", *a);
	say("\n");
	if (capture)
		say("VDSOKIT-DATA %s BEGIN\n", id);
	pid = fork();
	if (pid < 0) {
		say("VDSOKIT-EXIT %s noexec fork: %s\n", id, strerror(errno));
		return;
	}
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(capture ? err[1] : out[1], 2);
		close(out[0]);
		close(out[1]);
		close(err[0]);
		close(err[1]);
		execv(argv[0], argv);
		dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);

	struct pollfd fds[2] = { { .fd = out[0], .events = POLLIN }, { .fd = err[0], .events = POLLIN } };
	int open_fds = 2;
	while (open_fds > 0) {
		double now = now_seconds(), step = now - last_read;
		last_read = now;
		elapsed += step < 0 ? 0 : step > MAX_STEP_SECONDS ? MAX_STEP_SECONDS : step;
		double left = timeout - elapsed;
		if (left <= 0) {
			timed_out = 1;
			kill(pid, SIGKILL);
			break;
		}
		int r = poll(fds, 2, (int)((left < 1 ? left : 1) * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (int i = 0; i < 2; i++) {
			char buf[4096];
			ssize_t n;

			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fds[i].fd, buf, sizeof buf);
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			} else if (i == 0 && capture) {
				b64_feed(&data, (unsigned char *)buf, (size_t)n);
			} else if (capture) {
				/* Held back until the data block is closed, so
				 * text never splits a base64 line. */
				size_t room = sizeof held_err - held_len;
				size_t take = (size_t)n < room ? (size_t)n : room;
				memcpy(held_err + held_len, buf, take);
				held_len += take;
			} else {
				text_feed(i == 0 ? &text_out : &text_err, buf, (size_t)n);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	waitpid(pid, &status, 0);
	text_finish(&text_out);
	text_finish(&text_err);
	if (capture) {
		b64_finish(&data);
		say("VDSOKIT-DATA %s END %zu\n", id, data.total);
		text_feed(&text_err, held_err, held_len);
		text_finish(&text_err);
	}
	report_status(id, status, timed_out);
}

static void send_file(const char *id, const char *path)
{
	unsigned char buf[4096];
	struct b64 data = { .npending = 0 };
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		say("%s| cannot open %s: %s\n", id, path, strerror(errno));
		say("VDSOKIT-EXIT %s noexec\n", id);
		return;
	}
	say("VDSOKIT-DATA %s BEGIN\n", id);
	while ((n = read(fd, buf, sizeof buf)) > 0)
		b64_feed(&data, buf, (size_t)n);
	close(fd);
	b64_finish(&data);
	say("VDSOKIT-DATA %s END %zu\n", id, data.total);
	say("VDSOKIT-EXIT %s exit %d\n", id, n < 0 ? 1 : 0);
}

static int split_words(char *line, char **words)
{
	int n = 0;

	for (char *w = strtok(line, " \t\r\n"); w && n < MAX_WORDS - 1; w = strtok(NULL, " \t\r\n"))
		words[n++] = w;
	words[n] = NULL;
	return n;
}

static void run_plan(const char *path)
{
	char line[MAX_LINE];
	FILE *plan = fopen(path, "r");

	if (!plan) {
		say("VDSOKIT-GUEST error no plan %s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof line, plan)) {
		char *w[MAX_WORDS];
		int n = split_words(line, w);

		if (n == 0 || w[0][0] == '#')
			continue;
		if ((strcmp(w[0], "run") == 0 || strcmp(w[0], "capture") == 0) && n >= 4)
			run_step(w[1], w[0][0] == 'c', atof(w[2]), &w[3]);
		else if (strcmp(w[0], "send") == 0 && n == 3)
			send_file(w[1], w[2]);
		else
			say("VDSOKIT-GUEST error bad plan line starting '%s'\n", w[0]);
	}
	fclose(plan);
}

int main(void)
{
	struct utsname u;

	setup_console();
	setup_filesystems();
	/* A child killed for its timeout must not take init with it. */
	signal(SIGPIPE, SIG_IGN);
	/* Firmware and kernel may leave the console mid-line (escape
	 * sequences, no newline): start the report on a line of its own. */
	say("\n");
	if (uname(&u) == 0)
		say("VDSOKIT-GUEST uname %s %s %s\n", u.sysname, u.release, u.machine);
	say("VDSOKIT-GUEST start\n");
	run_plan("/plan");
	say("VDSOKIT-DONE\n");
	sync();
#if defined(__i386__) || defined(__x86_64__)
	/* An x86 kernel without ACPI (the y2038 guests') cannot power off: it
	 * halts, and QEMU waits for the host's timeout.  It can reset, and
	 * QEMU's -no-reboot turns a reset into an exit. */
	if (access("/sys/firmware/acpi", F_OK) != 0)
		reboot(RB_AUTOBOOT);
#endif
	reboot(RB_POWER_OFF);
	/* Power-off failed: exiting panics the kernel, and with panic=-1 and
	 * -no-reboot QEMU exits too (except sun4u, where the host's timeout
	 * ends it). */
	say("VDSOKIT-GUEST power-off failed: %s\n", strerror(errno));
	return 1;
}
