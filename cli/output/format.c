/* SPDX-License-Identifier: MIT */
/*
 * Numbers and names as people read them: durations with their unit, ratios
 * with a times sign (µs and × in a UTF-8 locale, us and x in any other),
 * clock ids by name.
 */
#include <ctype.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"

/*
 * The environment's LC_CTYPE codeset, read once: setlocale(LC_CTYPE, "")
 * for nl_langinfo(CODESET), then the locale put back, so that nothing
 * else the tool does changes with the environment.
 */
bool cli_text_utf8(void)
{
	static int utf8 = -1;
	if (utf8 < 0) {
		const char *current = setlocale(LC_CTYPE, NULL);
		char saved[128] = "C";
		if (current)
			snprintf(saved, sizeof(saved), "%s", current);
		utf8 = setlocale(LC_CTYPE, "") && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
		setlocale(LC_CTYPE, saved);
	}
	return utf8;
}

const char *cli_micro_sign(void)
{
	return cli_text_utf8() ? "\u00b5" : "u";
}

const char *cli_times_sign(void)
{
	return cli_text_utf8() ? "\u00d7" : "x";
}

const char *fmt_3_digits(char *buf, size_t size, double value, const char *unit)
{
	if (!isfinite(value) || value < 0)
		snprintf(buf, size, "-");
	else if (value < 10)
		snprintf(buf, size, "%.2f%s", value, unit);
	else if (value < 100)
		snprintf(buf, size, "%.1f%s", value, unit);
	else if (value < 1e15)
		snprintf(buf, size, "%.0f%s", value, unit);
	else    /* %.0f of 1e300 is 301 digits: more than any caller's buffer */
		snprintf(buf, size, "%.3g%s", value, unit);
	return buf;
}

const char *fmt_duration_ns(char *buf, size_t size, double ns)
{
	if (!isfinite(ns) || ns < 1e3)
		return fmt_3_digits(buf, size, ns, " ns");
	if (ns < 1e6)
		snprintf(buf, size, "%.3g %ss", ns / 1e3, cli_micro_sign());
	else if (ns < 1e9)
		snprintf(buf, size, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3g s", ns / 1e9);
	return buf;
}

const char *fmt_ratio(char *buf, size_t size, double ratio)
{
	return fmt_3_digits(buf, size, ratio > 0 ? ratio : NAN, cli_times_sign());
}

/* Clock ids are kernel ABI (include/uapi/linux/time.h), the same on every arch. */
static const char *const clock_names[] = {
	"REALTIME", "MONOTONIC", "PROCESS_CPUTIME_ID", "THREAD_CPUTIME_ID",
	"MONOTONIC_RAW", "REALTIME_COARSE", "MONOTONIC_COARSE", "BOOTTIME",
	"REALTIME_ALARM", "BOOTTIME_ALARM", "SGI_CYCLE", "TAI",
};

#define CLOCK_NAME_COUNT (long)(sizeof(clock_names) / sizeof(clock_names[0]))
/* CLOCK_AUX .. CLOCK_AUX_LAST, Linux 6.17 (PTP-style auxiliary clocks). */
#define AUX_CLOCK_FIRST 16
#define AUX_CLOCK_LAST 23

/*
 * Negative ids are the kernel's dynamic clocks (include/linux/posix-timers.h):
 * ~pid << 3 | per-thread << 2 | kind (PROF, VIRT, SCHED) for a CPU-time
 * clock, pid 0 being the caller; ~fd << 3 | 3 for a clock behind a file
 * descriptor (a PTP device).  Named for what they are, so that -3 (this
 * thread's VIRT clock) is not called INVALID.  A pid above PID_MAX_LIMIT
 * (2^22) can name nothing: those stay INVALID.  No comma: labels go into CSV.
 */
static bool dynamic_clock_name(char *buf, size_t size, long clock)
{
	static const char *const kinds[] = { "PROF", "VIRT", "SCHED" };
	if (clock >= 0 || clock < INT32_MIN)
		return false;
	long high = (~clock) >> 3;   /* = ~(clock >> 3), as glibc and the kernel compute it, without shifting a negative value */
	unsigned kind = (unsigned)clock & 3;
	bool per_thread = (clock & 4) != 0;
	if (kind == 3) {
		if (per_thread)
			return false;
		snprintf(buf, size, "FD(%ld)", high);
		return true;
	}
	if (high > (1L << 22))
		return false;
	if (high == 0)
		snprintf(buf, size, "CPU_%s(%s self)", kinds[kind], per_thread ? "thread" : "process");
	else
		snprintf(buf, size, "CPU_%s(%s %ld)", kinds[kind], per_thread ? "tid" : "pid", high);
	return true;
}

const char *clock_id_name(char *buf, size_t size, long clock)
{
	if (clock >= 0 && clock < CLOCK_NAME_COUNT)
		snprintf(buf, size, "%s", clock_names[clock]);
	else if (clock >= AUX_CLOCK_FIRST && clock <= AUX_CLOCK_LAST)
		snprintf(buf, size, "AUX%ld", clock - AUX_CLOCK_FIRST);
	else if (!dynamic_clock_name(buf, size, clock))
		snprintf(buf, size, "INVALID(%ld)", clock);
	return buf;
}

bool clock_id_parse(const char *text, long *clock)
{
	const char *name = text;
	if (strncasecmp(name, "CLOCK_", 6) == 0)
		name += 6;
	for (long i = 0; i < CLOCK_NAME_COUNT; i++) {
		if (strcasecmp(name, clock_names[i]) == 0) {
			*clock = i;
			return true;
		}
	}
	if (strncasecmp(name, "AUX", 3) == 0 && name[3] >= '0' && name[3] <= '7' && !name[4]) {
		*clock = AUX_CLOCK_FIRST + (name[3] - '0');
		return true;
	}
	if (strncasecmp(name, "INVALID(", 8) == 0)
		name += 8;
	char *end;
	errno = 0;
	long v = strtol(name, &end, 0);
	if (errno || end == name || v < INT32_MIN || v > INT32_MAX)
		return false;
	if (*end == ')' && name != text)
		end++;
	if (*end)
		return false;
	*clock = v;
	return true;
}

clockid_t cpu_clock_id(pid_t pid, bool per_thread, enum cpu_clock_kind kind)
{
	/* Computed unsigned: shifting a negative int is undefined in C. */
	unsigned id = (~(unsigned)pid << 3) | (per_thread ? 4u : 0u) | (unsigned)kind;
	return (clockid_t)id;
}

int64_t timespec_ns(const struct vdsokit_timespec *ts)
{
	if (ts->tv_sec > INT64_MAX / 1000000000 - 1)
		return INT64_MAX;
	if (ts->tv_sec < INT64_MIN / 1000000000 + 1)
		return INT64_MIN;
	return ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* The library's names for its functions, "?" for a value it does not know. */
const char *cli_func_name(enum vdsokit_func fn)
{
	const char *name = vdsokit_func_name(fn);
	return name ? name : "?";
}

bool cli_func_parse(const char *text, enum vdsokit_func *fn)
{
	if (strcasecmp(text, "tp") == 0) {
		*fn = VDSOKIT_FN_THREAD_POINTER;
		return true;
	}
	for (unsigned i = 0; i < VDSOKIT_FN_COUNT; i++) {
		const char *name = vdsokit_func_name((enum vdsokit_func)i);
		if (name && strcasecmp(text, name) == 0) {
			*fn = (enum vdsokit_func)i;
			return true;
		}
	}
	return false;
}

const char *errno_name(int error)
{
	/* Only those a vDSO function, its syscall or the parser can return. */
	static const struct { int value; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { ENOEXEC, "ENOEXEC" },
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
		{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { ENODEV, "ENODEV" },
		{ EINVAL, "EINVAL" }, { ENOSYS, "ENOSYS" }, { EOVERFLOW, "EOVERFLOW" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ERANGE, "ERANGE" },
	};
	static __thread char other[16];
	if (error == -REFERENCE_KILLED)
		return "SIGSYS";   /* not an errno: the syscall is killed (output.h) */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].value == error)
			return names[i].name;
	snprintf(other, sizeof(other), "E%d", error);
	return other;
}

const char *signal_name(int sig, char *buf, size_t size)
{
	/* Those a bad pointer, a hang guard or a sandbox can produce. */
	static const struct { int sig; const char *name; } names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGILL, "SIGILL" },
		{ SIGFPE, "SIGFPE" }, { SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" },
		{ SIGSYS, "SIGSYS" }, { SIGTRAP, "SIGTRAP" }, { SIGALRM, "SIGALRM" },
		{ SIGTERM, "SIGTERM" }, { SIGXCPU, "SIGXCPU" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(buf, size, "SIG%d", sig);
	return buf;
}

bool syscall_refused(long result)
{
	return result == -EPERM || result == -EACCES || result == -ENOSYS ||
	       result == REFERENCE_KILLED;
}
