/* SPDX-License-Identifier: MIT */
/*
 * vDSO image files the tool reads or runs: how far an image's load segment
 * says it goes (inspect warns when the file stops short), and the test aid
 * behind verify/abi --image, which runs a file's code in this process.
 *
 * Running a file is safe only when its code needs nothing but the file.  A
 * copy of a live vDSO (`vdsokit dump`) does not qualify: its code reads the
 * kernel's data pages (vvar, vclock) at fixed offsets before the image,
 * which no file supplies.  Whether code does that cannot be decided by
 * looking at it (every architecture addresses the pages its own way), so
 * the image is put to the test: copied between inaccessible guard regions,
 * where a read of the missing pages faults instead of reading whatever
 * happens to lie there, and each function it offers called once with good
 * arguments in a child process.  A child that dies names the function and
 * the signal, and the image is refused; the synthetic images of
 * tests/images, which compute their results, pass.
 *
 * The file is read into memory, not mapped: a file truncated or rewritten
 * while verify runs cannot kill the tool with SIGBUS.  An image must
 * provide at least one function of its architecture's table: an ELF file
 * with none (/bin/ls, libc.so.6) would leave every "vDSO" path the
 * syscall, compared with itself.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "images/images.h"
#include "host/child.h"

/* ELF fields in the image's own class and byte order, bounds-checked. */
static bool read_field(const unsigned char *data, size_t size, uint64_t offset,
		       unsigned width, bool big_endian, uint64_t *value)
{
	if (offset > size || width > size - offset)
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < width; i++) {
		unsigned byte = big_endian ? i : width - 1 - i;
		v = v << 8 | data[offset + byte];
	}
	*value = v;
	return true;
}

bool image_load_span(const unsigned char *data, size_t size, uint64_t *span)
{
	if (size < EI_NIDENT || memcmp(data, ELFMAG, SELFMAG) != 0)
		return false;
	bool is64 = data[EI_CLASS] == ELFCLASS64, be = data[EI_DATA] == ELFDATA2MSB;
	if (!is64 && data[EI_CLASS] != ELFCLASS32)
		return false;
	/* Offsets of e_phoff, e_phentsize, e_phnum and of p_offset, p_filesz. */
	unsigned word = is64 ? 8 : 4;
	uint64_t phoff, phentsize, phnum;
	if (!read_field(data, size, is64 ? 32 : 28, word, be, &phoff) ||
	    !read_field(data, size, is64 ? 54 : 42, 2, be, &phentsize) ||
	    !read_field(data, size, is64 ? 56 : 44, 2, be, &phnum))
		return false;
	uint64_t end = 0;
	bool found = false;
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t ph = phoff + i * phentsize, type, offset, filesz;
		if (!read_field(data, size, ph, 4, be, &type) ||
		    !read_field(data, size, ph + (is64 ? 8 : 4), word, be, &offset) ||
		    !read_field(data, size, ph + (is64 ? 32 : 16), word, be, &filesz))
			return false;
		if (type != PT_LOAD)
			continue;
		found = true;
		if (offset + filesz > end)
			end = offset + filesz;
	}
	*span = end;
	return found;
}

/* Guards around the mapped file: more than any architecture's data pages. */
#define GUARD_SIZE ((size_t)4 << 20)
/* A function that has not returned by then never will. */
#define PROBE_SECONDS 5

/* What the probe calls, in order; the child reports each index before the call. */
static const char *const probe_names[] = {
	"clock_gettime", "clock_getres", "gettimeofday", "time", "getcpu", "getrandom",
};

static void probe_calls(int report)
{
	for (unsigned char step = 0; step < sizeof(probe_names) / sizeof(probe_names[0]); step++) {
		if (write(report, &step, 1) != 1)
			_exit(3);
		struct vdsokit_timespec ts;
		struct vdsokit_timeval tv;
		struct timezone tz;
		int64_t t;
		unsigned cpu, node;
		unsigned char buf[16];
		switch (step) {
		case 0:
			for (clockid_t c = 0; c < 12; c++)
				vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, c, &ts);
			break;
		case 1:
			for (clockid_t c = 0; c < 12; c++)
				vdsokit_clock_getres_via(VDSOKIT_ROUTE_VDSO, c, &ts);
			break;
		case 2: vdsokit_gettimeofday_via(VDSOKIT_ROUTE_VDSO, &tv, &tz); break;
		case 3: vdsokit_time_via(VDSOKIT_ROUTE_VDSO, &t); break;
		case 4: vdsokit_getcpu_via(VDSOKIT_ROUTE_VDSO, &cpu, &node); break;
		case 5: vdsokit_getrandom_via(VDSOKIT_ROUTE_VDSO, buf, sizeof(buf), 0); break;
		}
	}
	_exit(0);
}

/* What a signal from the image's code says about it, for a sentence. */
static const char *probe_signal_cause(int sig)
{
	switch (sig) {
	case SIGSEGV:
	case SIGBUS:
		return "its code reads memory the file does not contain (a copy of a running "
		       "kernel's vDSO reads the kernel's data pages mapped before it)";
	case SIGILL:
		return "its code holds an instruction this CPU does not execute";
	case SIGSYS:
		return "a syscall it made, or the probe's own setup, is refused by a seccomp "
		       "filter";
	case SIGFPE:
		return "its code divided by zero or overflowed";
	case SIGTRAP:
		return "its code hit a breakpoint";
	default:
		return "the probe process was killed";
	}
}

/*
 * Calls the image's functions in a child: NULL when all returned, else why
 * the image cannot be run (in why[]).
 */
static const char *probe_image(char *why, size_t size)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		snprintf(why, size, "cannot check that its code runs: pipe: %s", strerror(errno));
		return why;
	}
	pid_t pid = child_start();
	if (pid < 0) {
		snprintf(why, size, "cannot check that its code runs: %s", child_start_why());
		close(pipefd[0]);
		close(pipefd[1]);
		return why;
	}
	if (pid == 0) {
		close(pipefd[0]);
		/* The crash is the answer: no handler (a sanitizer's) may turn it into an exit. */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGILL, SIG_DFL);
		/* Its own bound should the tool die (refused, the parent's deadline holds). */
		signal(SIGALRM, SIG_DFL);
		alarm(PROBE_SECONDS + 1);
		probe_calls(pipefd[1]);
	}
	close(pipefd[1]);
	/* Its deadline needs no signal, which a sandbox may refuse (alarm). */
	int status, e = child_wait_within(pid, &status, PROBE_SECONDS);
	unsigned char step, last = 0xff;
	ssize_t n;
	/* The child is gone: its steps are all in the pipe. */
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	while ((n = read(pipefd[0], &step, 1)) == 1 || (n < 0 && errno == EINTR))
		if (n == 1)
			last = step;
	close(pipefd[0]);
	const char *func = last < sizeof(probe_names) / sizeof(probe_names[0]) ?
			   probe_names[last] : "first function";
	if (e == -ETIMEDOUT || (!e && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)) {
		snprintf(why, size, "its %s did not return within %d s", func, PROBE_SECONDS);
		return why;
	}
	if (e) {
		snprintf(why, size, "cannot check that its code runs: waitpid: %s", strerror(-e));
		return why;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	if (WIFSIGNALED(status)) {
		char buf[16];
		int sig = WTERMSIG(status);
		snprintf(why, size, "calling its %s ended in %s: %s", func,
			 signal_name(sig, buf, sizeof(buf)), probe_signal_cause(sig));
	} else {
		snprintf(why, size, "the process that tried its code exited with status %d",
			 WEXITSTATUS(status));
	}
	return why;
}

/* Whether the file holds this process's own vDSO, byte for byte: worth a hint. */
static bool is_own_vdso(const unsigned char *file, size_t size)
{
	const void *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		return false;
	/* Readable as far as dump reads it: the [vdso] mapping. */
	struct vdso_mapping maps[16];
	unsigned count = vdso_mappings_read(maps, 16);
	for (unsigned i = 0; i < count; i++)
		if (strcmp(maps[i].name, "[vdso]") == 0 && (uintptr_t)base == maps[i].start)
			return size <= maps[i].end - maps[i].start && memcmp(base, file, size) == 0;
	return false;
}

static const char *image_path;

const char *cli_image_path(void)
{
	return image_path;
}

const char *cli_reason_text(enum vdsokit_reason reason)
{
	if (image_path && reason == VDSOKIT_REASON_SYMBOL_ABSENT)
		return "the image lacks the symbol";
	return vdsokit_reason_text(reason);
}

/* Reads size bytes of fd at dst: 0, or the errno (EIO: the file got shorter). */
static int read_whole(int fd, unsigned char *dst, size_t size)
{
	size_t done = 0;
	while (done < size) {
		ssize_t n = pread(fd, dst + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return EIO;
		done += (size_t)n;
	}
	return 0;
}

/* The library functions the image gives a vDSO symbol to, in words; how many. */
static unsigned provided_functions(char *names, size_t size)
{
	unsigned count = 0;
	names[0] = 0;
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		struct vdsokit_route_info info;
		if (fn == VDSOKIT_FN_THREAD_POINTER ||
		    vdsokit_route_of((enum vdsokit_func)fn, CLOCK_MONOTONIC, &info) != 0 ||
		    !info.symbol)
			continue;
		size_t used = strlen(names);
		snprintf(names + used, size - used, "%s%s", count ? ", " : "", info.symbol);
		count++;
	}
	return count;
}

/* What kind of file st is, for "not a regular file (...)". */
static const char *file_kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	default: return "not a plain file";
	}
}

/* Opens path for image_file_read: the descriptor, or -1 after cli_error. */
static int open_image(const char *cmd, const char *path, size_t max_size, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		cli_error(cmd, path, "%s", strerror(errno));
		return -1;
	}
	struct stat st;
	const char *why = NULL;
	char text[96];
	if (fstat(fd, &st) != 0) {
		snprintf(text, sizeof(text), "cannot stat it: %s", strerror(errno));
		why = text;
	} else if (!S_ISREG(st.st_mode)) {
		snprintf(text, sizeof(text), "not a regular file (%s)", file_kind(&st));
		why = text;
	} else if ((uint64_t)st.st_size > max_size) {
		snprintf(text, sizeof(text), "%lld bytes, larger than %zu MiB: not a vDSO image",
			 (long long)st.st_size, max_size >> 20);
		why = text;
	} else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
		snprintf(text, sizeof(text), "fcntl: %s", strerror(errno));
		why = text;
	}
	if (why) {
		close(fd);
		cli_error(cmd, path, "%s", why);
		return -1;
	}
	*size = (size_t)st.st_size;
	return fd;
}

int image_file_read(const char *cmd, const char *path, size_t max_size,
		    unsigned char **data, size_t *size)
{
	int fd = open_image(cmd, path, max_size, size);
	if (fd < 0)
		return CLI_EXIT_USAGE;
	*data = malloc(*size + 1);
	int e = *data ? read_whole(fd, *data, *size) : ENOMEM;
	close(fd);
	if (e) {
		free(*data);
		*data = NULL;
		return cli_error(cmd, path, "cannot read it: %s", e == EIO ?
				 "it got shorter while it was read" : strerror(e));
	}
	(*data)[*size] = 0;
	return 0;
}

int use_image_file(const char *cmd, const char *path)
{
	size_t size;
	int fd = open_image(cmd, path, IMAGE_OPTION_MAX_SIZE, &size);
	if (fd < 0)
		return CLI_EXIT_USAGE;
	if (size == 0) {
		close(fd);
		return cli_error(cmd, path, "empty: not a vDSO image");
	}
	long page = sysconf(_SC_PAGESIZE);
	size_t mapped = (size + (size_t)page - 1) & ~((size_t)page - 1);
	/* The guards stay PROT_NONE: a read of the missing data pages faults. */
	unsigned char *area = mmap(NULL, GUARD_SIZE + mapped + GUARD_SIZE, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED) {
		int e = errno;
		close(fd);
		return cli_error(cmd, path, "cannot reserve memory for it: %s", strerror(e));
	}
	/*
	 * A copy, flat and executable as the kernel maps its own, kept for the
	 * process's life: what happens to the file afterwards changes nothing.
	 */
	unsigned char *base = mmap(area + GUARD_SIZE, mapped, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		int e = errno;
		close(fd);
		return cli_error(cmd, path, "cannot reserve memory for it: %s", strerror(e));
	}
	int e = read_whole(fd, base, size);
	close(fd);
	if (e)
		return cli_error(cmd, path, "cannot read it: %s", e == EIO ?
				 "it got shorter while it was read" : strerror(e));
	if (mprotect(base, mapped, PROT_READ | PROT_EXEC) != 0)
		return cli_error(cmd, path, "cannot make it executable: %s", strerror(errno));

	uint64_t span;
	if (image_load_span(base, size, &span) && span > size)
		return cli_error(cmd, path, "cannot run it: the file has %zu bytes but its "
				 "PT_LOAD segments span %llu (truncated: its code is missing)",
				 size, (unsigned long long)span);
	int r = vdsokit_use_image(base, size);
	if (r != 0)
		return cli_error(cmd, path, "the library refused the image: %s", strerror(-r));
	if (vdsokit_init() != 0)
		return cli_error(cmd, path, "not a usable vDSO image for %s", vdsokit_arch_name());
	char names[256];
	if (provided_functions(names, sizeof(names)) == 0)
		return cli_error(cmd, path, "not a vDSO image: it provides none of the vDSO functions "
				 "of %s (none of the symbols its table names): every "
				 "\"vDSO\" path would be the syscall, compared with itself",
				 vdsokit_arch_name());
	char why[400];
	if (probe_image(why, sizeof(why))) {
		bool own = is_own_vdso(base, size);
		return cli_error(cmd, path, "cannot run it: %s%s", why,
				 own ? "; it is this process's own vDSO: run without --image to "
				       "check the live one" : "");
	}
	image_path = path;
	bench_clock_use_syscall();
	return 0;
}
