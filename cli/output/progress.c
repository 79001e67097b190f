/* SPDX-License-Identifier: MIT */
/*
 * Progress of long work (bench, verify) for someone watching a terminal:
 * one line on stderr, no wider than the terminal (measured at every redraw,
 * so that it never wraps), redrawn at most five times a second and cleared
 * before anything else is printed.  Only when stderr is a terminal: a pipe
 * or a file gets none of it, so logs and parsers see the same bytes as
 * without it.  Called from the measuring loops of one thread; a tick is a
 * flag test when off, and a clock read when on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "output/output.h"

#define REDRAW_NS 200e6

static struct {
	bool on, drawn;
	pid_t pid;             /* the process that draws: a forked child does not */
	const char *cmd;
	char phase[64];
	double start_ns, total_s, last_draw_ns;
} progress;

/* The terminal's width now (it may have been resized), 0 if it does not say. */
static size_t terminal_columns(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0)
		return 0;
	return ws.ws_col;
}

static void draw(double now)
{
	double elapsed = (now - progress.start_ns) / 1e9;
	char line[256];
	snprintf(line, sizeof(line), "%s %s: %s, %.1f of ~%.1f s", CLI_PROGRAM, progress.cmd,
		 progress.phase, elapsed, progress.total_s);
	/*
	 * A line that wraps cannot be erased by \r and \033[K: each redraw
	 * would leave a stale line.  One column short of the width (a cursor
	 * in the last column wraps on some terminals): the short form, then cut.
	 */
	size_t columns = terminal_columns();
	if (columns && strlen(line) > columns - 1) {
		snprintf(line, sizeof(line), "%s: %.1f/%.1f s", progress.phase, elapsed,
			 progress.total_s);
		if (strlen(line) > columns - 1)
			line[columns - 1] = 0;
	}
	/* \r and "erase to end of line": the line is rewritten in place. */
	fprintf(stderr, "\r\033[K%s", line);
	progress.drawn = true;
	progress.last_draw_ns = now;
}

void progress_begin(const char *cmd, double total_s)
{
	const char *term = getenv("TERM");
	memset(&progress, 0, sizeof(progress));
	/* A dumb terminal (an editor's shell buffer) cannot erase the line. */
	progress.on = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
	progress.pid = getpid();
	progress.cmd = cmd;
	progress.total_s = total_s;
	progress.start_ns = bench_now_ns();
}

/*
 * Only in the process that began: a child forked into a time namespace
 * reads another CLOCK_MONOTONIC, and its line would fight the parent's.
 */
static bool drawing_here(void)
{
	return progress.on && getpid() == progress.pid;
}

void progress_phase(const char *fmt, ...)
{
	va_list ap;
	if (!drawing_here())
		return;
	va_start(ap, fmt);
	vsnprintf(progress.phase, sizeof(progress.phase), fmt, ap);
	va_end(ap);
	draw(bench_now_ns());
}

void progress_tick(void)
{
	if (!drawing_here())
		return;
	double now = bench_now_ns();
	if (now - progress.last_draw_ns >= REDRAW_NS)
		draw(now);
}

bool progress_active(void)
{
	return drawing_here();
}

pid_t progress_waitpid(pid_t pid, int *status)
{
	pid_t r;
	if (!drawing_here()) {
		while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
			;
		return r;
	}
	/* The child works while this process keeps the line current. */
	while ((r = waitpid(pid, status, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) {
		progress_tick();
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
	return r;
}

void progress_clear(void)
{
	if (progress.drawn && getpid() == progress.pid) {
		fputs("\r\033[K", stderr);
		progress.drawn = false;
		/* The next tick redraws it. */
		progress.last_draw_ns = 0;
	}
}

void progress_erase_from_signal(void)
{
	static const char erase[] = "\r\033[K";
	if (progress.drawn && getpid() == progress.pid) {
		ssize_t ignored = write(STDERR_FILENO, erase, sizeof(erase) - 1);
		(void)ignored;
	}
}

void progress_end(void)
{
	progress_clear();
	progress.on = false;
}
