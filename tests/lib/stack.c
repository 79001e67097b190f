// SPDX-License-Identifier: MIT
/*
 * How much stack each public call of the library needs, measured with the
 * painted-stack probe (cli/measure/stack_probe.c): every call on a stack of its
 * own, in a fresh process, the first call's initialisation and a first
 * getrandom included; then the maximum against the bound docs/library.md and
 * libvdsokit(3) state for this architecture (tests/stack-bounds.txt).
 *
 *   stack [--image FILE] [--bounds FILE]
 *
 * The paths measured are this process's: the kernel's vDSO natively, the
 * syscalls where there is none (qemu-user), or with --image the synthetic
 * image FILE (tests/images) standing in for a vDSO.  The first lines check
 * the probe itself on functions of known depth, so that a probe that sees
 * nothing cannot pass for a library that uses nothing; where it cannot
 * measure, every case says so (a skip each).  Last, first calls made by
 * several threads at once (concurrent initialisation, state claims), each
 * thread's stack measured on its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/auxv.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "../../cli/measure/stack_probe.h"
#include "../images/fake_abi.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#ifndef TEST_STACK_BOUNDS
#define TEST_STACK_BOUNDS "tests/stack-bounds.txt"
#endif

/* ---- the probe's own check: known depths ---------------------------------- */

#define KNOWN_WRITE 3000
#define KNOWN_READ 9000

/* Writes a 3000-byte array: the deepest write is at least that far down. */
static __attribute__((noinline)) long write_deep(void)
{
	volatile unsigned char frame[KNOWN_WRITE];
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (unsigned char)(i | 1);
	return frame[7];
}

/*
 * What a stack probe does: one read-modify-write far below, leaving the
 * byte as it was.  Paint cannot see it; residency must.
 */
static __attribute__((noinline)) long probe_deep(void)
{
	unsigned char frame[KNOWN_READ];
	/* As far as the compiler knows, the asm filled the array. */
	__asm__ volatile("" : : "r"(frame) : "memory");
	volatile unsigned char *bottom = frame;
	*bottom = *bottom;
	return 0;
}

static __attribute__((noinline)) long shallow(void)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

static long known_thunk(void *arg)
{
	long which = (long)(intptr_t)arg;
	STACK_PROBE_MARK();
	return which == 0 ? shallow() : which == 1 ? write_deep() : probe_deep();
}

/* Why the probe cannot measure here, or "" where it can. */
static char probe_why[200];

static void check_probe(void)
{
	struct stack_probe_result r;
	if (!stack_probe(NULL, known_thunk, (void *)(intptr_t)0, &r)) {
		snprintf(probe_why, sizeof(probe_why), "%s", r.why);
		skip("the stack probe cannot measure here: %s", r.why);
		return;
	}
	ok(r.deepest < 512, "probe: an almost empty function touches %zu bytes (< 512)", r.deepest);
	stack_probe(NULL, known_thunk, (void *)(intptr_t)1, &r);
	ok(r.measured && r.deepest >= KNOWN_WRITE && r.deepest < KNOWN_WRITE + 512 && !r.page_granular,
	   "probe: a %d-byte array written: %zu bytes, exact (%s)", KNOWN_WRITE, r.deepest,
	   r.measured ? "paint" : r.why);
	stack_probe(NULL, known_thunk, (void *)(intptr_t)2, &r);
	if (r.measured && !r.residency_checked)
		skip("probe: a touch that writes nothing is not seen here (no mincore): %s", r.why);
	else
		/* Seen by residency, to the page (8 KiB on sparc64); or written after all,
		   where the ABI stores a back chain at the bottom of every frame (powerpc). */
		ok(r.measured && r.deepest >= KNOWN_READ &&
			   r.deepest < KNOWN_READ + (size_t)sysconf(_SC_PAGESIZE) + 512 &&
			   (r.page_granular || r.written >= KNOWN_READ),
		   "probe: a byte %d down left unchanged (a stack probe's or $0): %zu bytes, %s "
		   "(%zu bytes written)", KNOWN_READ, r.deepest, !r.measured ? r.why :
		   r.page_granular ? "page-granular (residency)" : "exact (paint)", r.written);
}

/* ---- the library's calls ------------------------------------------------ */

static const void *image_base;
static size_t image_size;

enum op {
	OP_INIT, OP_CLOCK_GETTIME, OP_CLOCK_GETRES, OP_GETTIMEOFDAY, OP_TIME, OP_GETCPU,
	OP_GETCPU_NODE, OP_GETRANDOM, OP_GETRANDOM_RANDOM, OP_THREAD_POINTER, OP_GETTIME_VIA,
	OP_GETRES_VIA, OP_GETTIMEOFDAY_VIA, OP_TIME_VIA, OP_GETCPU_VIA, OP_GETRANDOM_VIA,
	OP_THREAD_POINTER_VIA, OP_PATH_OF, OP_BARE_ENTRY, OP_NAMES, OP_PROCESS_IMAGE,
	OP_USE_IMAGE, OP_IMAGE_PARSE, OP_IMAGE_LOOKUP, OP_IMAGE_SYMBOL, OP_IMAGE_VERDEF,
	OP_HASHES,
};

struct call {
	enum op op;
	long arg;            /* a clock, a length, a vdsokit_via             */
	int warm;            /* 1: after vdsokit_init() and one call of its own;
				2: after vdsokit_init() alone */
	int may_fail;        /* an error is an answer here (a syscall refused) */
	char label[80];
};

static struct vdsokit_image parsed;
static const struct vdsokit_image *process_image;

static void prepare(void *arg)
{
	struct call *c = arg;
	/* Before anything else, as vdsokit_use_image wants. */
	if (image_base && c->op != OP_USE_IMAGE)
		vdsokit_use_image(image_base, image_size);
	if (!c->warm)
		return;
	vdsokit_init();
	if (c->warm == 2)
		return;
	unsigned char buf[64];
	struct vdsokit_timespec ts;
	vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	/* The thread's getrandom state, allocated now: a later call, not a first one. */
	vdsokit_getrandom(buf, sizeof(buf), 0);
	process_image = vdsokit_process_image();
	if (process_image)
		vdsokit_image_parse(&parsed, process_image->data, process_image->size);
}

/* The call itself, marked right before it: every buffer is in this frame, above the mark. */
static long run_call(void *arg)
{
	struct call *c = arg;
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	struct vdsokit_route_info path;
	struct vdsokit_symbol sym;
	struct vdsokit_verdef def;
	struct vdsokit_image img;
	const void *entry;
	int64_t t;
	unsigned cpu, node;
	unsigned char buf[512];
	/* From prepare: a call here would touch the stack below the mark before it. */
	const struct vdsokit_image *pi = process_image;
	enum vdsokit_route via = (enum vdsokit_route)c->arg;
	long r;

	switch (c->op) {
	case OP_INIT:
		STACK_PROBE_MARK();
		r = vdsokit_init();
		/* No vDSO (qemu-user) is an answer, not a failure. */
		return r == -ENOENT ? 0 : r;
	case OP_CLOCK_GETTIME:
		STACK_PROBE_MARK();
		return vdsokit_clock_gettime((clockid_t)c->arg, &ts);
	case OP_CLOCK_GETRES:
		STACK_PROBE_MARK();
		return vdsokit_clock_getres((clockid_t)c->arg, &ts);
	case OP_GETTIMEOFDAY:
		STACK_PROBE_MARK();
		return vdsokit_gettimeofday(&tv, NULL);
	case OP_TIME:
		STACK_PROBE_MARK();
		return vdsokit_time(&t);
	case OP_GETCPU:
		STACK_PROBE_MARK();
		return vdsokit_getcpu(&cpu, NULL);
	case OP_GETCPU_NODE:
		STACK_PROBE_MARK();
		return vdsokit_getcpu(&cpu, &node);
	case OP_GETRANDOM:
		STACK_PROBE_MARK();
		r = vdsokit_getrandom(buf, (size_t)c->arg, 0);
		return r == c->arg ? 0 : r < 0 ? r : -EIO;
	case OP_GETRANDOM_RANDOM:
		STACK_PROBE_MARK();
		r = vdsokit_getrandom(buf, 16, GRND_RANDOM | GRND_NONBLOCK);
		return r == -EAGAIN || r == 16 ? 0 : r < 0 ? r : -EIO;
	case OP_THREAD_POINTER:
		STACK_PROBE_MARK();
		return vdsokit_thread_pointer() ? 0 : -ENOSYS;
	case OP_GETTIME_VIA:
		STACK_PROBE_MARK();
		return vdsokit_clock_gettime_via(via, CLOCK_MONOTONIC, &ts);
	case OP_GETRES_VIA:
		STACK_PROBE_MARK();
		return vdsokit_clock_getres_via(via, CLOCK_MONOTONIC, &ts);
	case OP_GETTIMEOFDAY_VIA:
		STACK_PROBE_MARK();
		return vdsokit_gettimeofday_via(via, &tv, NULL);
	case OP_TIME_VIA:
		STACK_PROBE_MARK();
		return vdsokit_time_via(via, &t);
	case OP_GETCPU_VIA:
		STACK_PROBE_MARK();
		return vdsokit_getcpu_via(via, &cpu, &node);
	case OP_GETRANDOM_VIA:
		STACK_PROBE_MARK();
		r = vdsokit_getrandom_via(via, buf, 32, 0);
		return r == 32 ? 0 : r < 0 ? r : -EIO;
	case OP_THREAD_POINTER_VIA:
		STACK_PROBE_MARK();
		return vdsokit_thread_pointer_via(via) ? 0 : -ENOSYS;
	case OP_PATH_OF:
		STACK_PROBE_MARK();
		return vdsokit_route_of((enum vdsokit_func)c->arg, CLOCK_MONOTONIC, &path);
	case OP_BARE_ENTRY:
		STACK_PROBE_MARK();
		r = vdsokit_bare_entry((enum vdsokit_func)c->arg, &entry, NULL);
		return r == -ENOENT || r == -EOPNOTSUPP ? 0 : r;
	case OP_NAMES:
		STACK_PROBE_MARK();
		r = vdsokit_func_name(VDSOKIT_FN_GETCPU) != NULL;
		STACK_PROBE_MARK();
		r += vdsokit_route_name(VDSOKIT_ROUTE_VDSO) != NULL;
		STACK_PROBE_MARK();
		r += vdsokit_reason_text(VDSOKIT_REASON_OK) != NULL;
		STACK_PROBE_MARK();
		r += vdsokit_arch_name() != NULL;
		STACK_PROBE_MARK();
		r += vdsokit_image_strerror(VDSOKIT_IMAGE_BAD_HASH) != NULL;
		STACK_PROBE_MARK();
		r += vdsokit_machine_name(62, 64) != NULL;
		return r == 6 ? 0 : -EIO;
	case OP_PROCESS_IMAGE:
		STACK_PROBE_MARK();
		pi = vdsokit_process_image();
		__asm__ volatile("" : : "r"(pi));
		return 0;
	case OP_USE_IMAGE:
		STACK_PROBE_MARK();
		return vdsokit_use_image(image_base, image_size);
	case OP_IMAGE_PARSE:
		if (!pi)
			return -ENOENT;
		STACK_PROBE_MARK();
		return vdsokit_image_parse(&img, pi->data, pi->size) ? -ENOEXEC : 0;
	case OP_IMAGE_LOOKUP:
		if (!pi)
			return -ENOENT;
		STACK_PROBE_MARK();
		r = vdsokit_image_lookup(&parsed, "__vdso_no_such_function", NULL, &sym);
		return r == -ENOENT ? 0 : r;
	case OP_IMAGE_SYMBOL:
		if (!pi)
			return -ENOENT;
		STACK_PROBE_MARK();
		return vdsokit_image_symbol(&parsed, parsed.symbol_count - 1, &sym);
	case OP_IMAGE_VERDEF:
		if (!pi || parsed.verdef_count == 0)
			return -ENOENT;
		STACK_PROBE_MARK();
		return vdsokit_image_verdef(&parsed, parsed.verdef_count - 1, &def);
	case OP_HASHES:
		STACK_PROBE_MARK();
		r = vdsokit_elf_hash("__vdso_clock_gettime") != 0;
		STACK_PROBE_MARK();
		r += vdsokit_gnu_hash("__vdso_clock_gettime") != 0;
		return r == 2 ? 0 : -EIO;
	}
	return -EINVAL;
}

#define MAX_CALLS 96
static struct call calls[MAX_CALLS];
static unsigned call_count;

__attribute__((format(printf, 5, 6))) static void add(enum op op, long arg, int warm, int may_fail,
						    const char *fmt, ...)
{
	if (call_count >= MAX_CALLS)
		return;
	struct call *c = &calls[call_count++];
	c->op = op;
	c->arg = arg;
	c->warm = warm;
	c->may_fail = may_fail;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->label, sizeof(c->label), fmt, ap);
	va_end(ap);
}

static const char *const clock_names[] = {
	"REALTIME", "MONOTONIC", "PROCESS_CPUTIME_ID", "THREAD_CPUTIME_ID", "MONOTONIC_RAW",
	"REALTIME_COARSE", "MONOTONIC_COARSE", "BOOTTIME", "REALTIME_ALARM", "BOOTTIME_ALARM",
	"SGI_CYCLE", "TAI",
};

static void list_calls(void)
{
	static const char *const vias[] = { "AUTO", "VDSO", "SYSCALL" };
	/* First calls: each one the process's first, so it initialises. */
	add(OP_INIT, 0, 0, 0, "vdsokit_init, first call");
	add(OP_CLOCK_GETTIME, CLOCK_MONOTONIC, 0, 0, "vdsokit_clock_gettime(MONOTONIC), first call");
	add(OP_CLOCK_GETRES, CLOCK_MONOTONIC, 0, 0, "vdsokit_clock_getres(MONOTONIC), first call");
	add(OP_GETTIMEOFDAY, 0, 0, 0, "vdsokit_gettimeofday, first call");
	add(OP_TIME, 0, 0, 0, "vdsokit_time, first call");
	add(OP_GETCPU_NODE, 0, 0, 0, "vdsokit_getcpu(cpu, node), first call");
	add(OP_GETRANDOM, 32, 0, 0, "vdsokit_getrandom(32), first call (initialises, allocates the state)");
	add(OP_GETRANDOM, 32, 2, 0, "vdsokit_getrandom(32), the thread's first after initialisation (maps, hooks)");
	add(OP_THREAD_POINTER, 0, 0, 0, "vdsokit_thread_pointer, first call");
	add(OP_GETTIME_VIA, VDSOKIT_ROUTE_AUTO, 0, 0, "vdsokit_clock_gettime_via(AUTO), first call");
	add(OP_PATH_OF, VDSOKIT_FN_CLOCK_GETTIME, 0, 0, "vdsokit_route_of, first call");
	add(OP_BARE_ENTRY, VDSOKIT_FN_CLOCK_GETTIME, 0, 0, "vdsokit_bare_entry, first call");
	add(OP_PROCESS_IMAGE, 0, 0, 0, "vdsokit_process_image, first call");
	add(OP_USE_IMAGE, 0, 0, 0, "vdsokit_use_image, before any call");
	add(OP_NAMES, 0, 0, 0, "the name functions (func, route, reason, arch, image error, machine)");
	add(OP_HASHES, 0, 0, 0, "vdsokit_elf_hash, vdsokit_gnu_hash");
	/* Later calls: after vdsokit_init() and a getrandom of the thread's own. */
	add(OP_INIT, 0, 1, 0, "vdsokit_init, again");
	for (long c = 0; c < 12; c++)
		add(OP_CLOCK_GETTIME, c, 1, c >= 8, "vdsokit_clock_gettime(%s)", clock_names[c]);
	add(OP_CLOCK_GETTIME, 100, 1, 1, "vdsokit_clock_gettime(100), an invalid clock");
	for (long c = 0; c < 12; c++)
		add(OP_CLOCK_GETRES, c, 1, c >= 8, "vdsokit_clock_getres(%s)", clock_names[c]);
	add(OP_GETTIMEOFDAY, 0, 1, 0, "vdsokit_gettimeofday");
	add(OP_TIME, 0, 1, 0, "vdsokit_time");
	add(OP_GETCPU, 0, 1, 0, "vdsokit_getcpu(cpu, NULL)");
	add(OP_GETCPU_NODE, 0, 1, 0, "vdsokit_getcpu(cpu, node)");
	add(OP_GETRANDOM, 32, 1, 0, "vdsokit_getrandom(32), the thread's state in place");
	add(OP_GETRANDOM, 512, 1, 0, "vdsokit_getrandom(512)");
	add(OP_GETRANDOM_RANDOM, 0, 1, 0, "vdsokit_getrandom(16, GRND_RANDOM | GRND_NONBLOCK)");
	add(OP_THREAD_POINTER, 0, 1, 0, "vdsokit_thread_pointer");
	for (long v = 0; v < 3; v++) {
		/* Through the vDSO: -ENOSYS where there is no entry is the answer. */
		int may_fail = v == VDSOKIT_ROUTE_VDSO;
		add(OP_GETTIME_VIA, v, 1, may_fail, "vdsokit_clock_gettime_via(%s, MONOTONIC)", vias[v]);
		add(OP_GETRES_VIA, v, 1, may_fail, "vdsokit_clock_getres_via(%s, MONOTONIC)", vias[v]);
		add(OP_GETTIMEOFDAY_VIA, v, 1, may_fail, "vdsokit_gettimeofday_via(%s)", vias[v]);
		add(OP_TIME_VIA, v, 1, may_fail, "vdsokit_time_via(%s)", vias[v]);
		add(OP_GETCPU_VIA, v, 1, may_fail, "vdsokit_getcpu_via(%s)", vias[v]);
		add(OP_GETRANDOM_VIA, v, 1, may_fail, "vdsokit_getrandom_via(%s, 32)", vias[v]);
		add(OP_THREAD_POINTER_VIA, v, 1, v != VDSOKIT_ROUTE_AUTO,
		    "vdsokit_thread_pointer_via(%s)", vias[v]);
	}
	for (long f = 0; f < VDSOKIT_FN_COUNT; f++)
		add(OP_PATH_OF, f, 1, 0, "vdsokit_route_of(%s)", vdsokit_func_name((enum vdsokit_func)f));
	add(OP_BARE_ENTRY, VDSOKIT_FN_GETCPU, 1, 0, "vdsokit_bare_entry(getcpu)");
	add(OP_USE_IMAGE, 0, 1, 1, "vdsokit_use_image, after initialisation (-EBUSY)");
	add(OP_IMAGE_PARSE, 0, 1, 0, "vdsokit_image_parse of the process image");
	add(OP_IMAGE_LOOKUP, 0, 1, 0, "vdsokit_image_lookup of an absent name (every hash chain walked)");
	add(OP_IMAGE_SYMBOL, 0, 1, 0, "vdsokit_image_symbol, the last symbol");
	add(OP_IMAGE_VERDEF, 0, 1, 0, "vdsokit_image_verdef, the last definition");
}

/* ---- first calls at once ------------------------------------------------ */

/*
 * Several threads make their first call together: the process's
 * initialisation raced (each call may find it under way), and the state
 * claims of their first getrandom.  Each thread's call runs on a probe
 * stack of its own (stack_probe_threads), behind a start line that lets
 * none go before all have come.
 */
#define RACERS 4
static unsigned racers_at_line; /* in each probe child: it starts at 0 */

static long racing_call(void *arg)
{
	__atomic_add_fetch(&racers_at_line, 1, __ATOMIC_SEQ_CST);
	/* The yields' few bytes are this frame's, above run_call's mark. */
	while (__atomic_load_n(&racers_at_line, __ATOMIC_SEQ_CST) < RACERS)
		sched_yield();
	return run_call(arg);
}

struct race {
	const char *label;
	struct call calls[RACERS];
};

static struct race races[3];

static void list_races(void)
{
	/*
	 * The start line's sched_yield bound now, in a program bound lazily
	 * (stack-lazy.t): the dynamic linker's resolver would run below the
	 * racers' frames, and be counted as theirs.
	 */
	sched_yield();
	static const enum op mixed[RACERS] = { OP_CLOCK_GETTIME, OP_GETRANDOM, OP_GETTIMEOFDAY, OP_GETCPU_NODE };
	static const long mixed_arg[RACERS] = { CLOCK_MONOTONIC, 32, 0, 0 };
	races[0].label = "4 threads, each its first vdsokit_getrandom(32) at once (initialisation, state claims)";
	races[1].label = "4 threads at once: first clock_gettime, getrandom(32), gettimeofday, getcpu";
	races[2].label = "4 threads, each its first vdsokit_getrandom(32) at once after initialisation "
			 "(state claims)";
	for (unsigned i = 0; i < RACERS; i++) {
		races[0].calls[i] = (struct call){ OP_GETRANDOM, 32, 0, 0, "" };
		races[1].calls[i] = (struct call){ mixed[i], mixed_arg[i], 0, 0, "" };
		races[2].calls[i] = (struct call){ OP_GETRANDOM, 32, 2, 0, "" };
	}
}

/* ---- the stated bound ---------------------------------------------------- */

/*
 * The bound for arch in FILE: bytes, 0 without a line for it, -1 unreadable.
 * Where the default FILE is not there (a QEMU guest holds only the
 * programs), the copy of tests/stack-bounds.txt built in (stack-bounds.h)
 * is read, and *file says so; a FILE given with --bounds must be there.
 */
static long read_bound(const char **file, bool given, const char *arch, char *note,
		       size_t note_size)
{
	FILE *f = fopen(*file, "r");
#ifdef TEST_STACK_BOUNDS_EMBEDDED
	if (!f && errno == ENOENT && !given) {
		static const char embedded[] =
#include "stack-bounds.h"
			;
		f = fmemopen((void *)embedded, sizeof(embedded) - 1, "r");
		*file = "the copy of tests/stack-bounds.txt built into this program";
	}
#else
	(void)given;
#endif
	char line[256];
	if (!f)
		return -1;
	long bound = 0;
	while (fgets(line, sizeof(line), f)) {
		char name[32];
		long bytes;
		int used = 0;
		if (line[0] == '#' || sscanf(line, "%31s %ld %n", name, &bytes, &used) < 2)
			continue;
		if (strcmp(name, arch) == 0) {
			bound = bytes;
			snprintf(note, note_size, "%s", line + used);
			note[strcspn(note, "\n")] = '\0';
		}
	}
	fclose(f);
	return bound;
}

static int map_image(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
		fprintf(stderr, "stack: %s: %s\n", file, strerror(errno));
		return -1;
	}
	/* Flat, read and execute, as the kernel maps a vDSO (tests/callpath.c). */
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		fprintf(stderr, "stack: %s: mmap: %s\n", file, strerror(errno));
		return -1;
	}
	/* The 32-bit-time fakes count their calls in this page. */
	void *want = (void *)FAKE_COUNTERS_ADDR;
	void *got = mmap(want, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (got != MAP_FAILED && got != want)
		munmap(got, 4096);
	image_base = base;
	image_size = (size_t)st.st_size;
	return 0;
}

int main(int argc, char **argv)
{
	const char *const default_bounds = TEST_STACK_BOUNDS;
	const char *bounds = default_bounds, *image = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--image") == 0 && i + 1 < argc)
			image = argv[++i];
		else if (strcmp(argv[i], "--bounds") == 0 && i + 1 < argc)
			bounds = argv[++i];
		else {
			fprintf(stderr, "stack: unknown argument '%s'\nusage: stack [--image FILE] "
				"[--bounds FILE]\n", argv[i]);
			return 2;
		}
	}
	if (image && map_image(image) != 0)
		return 2;
	check_probe();
	list_calls();
	list_races();
	size_t max = 0;
	const char *max_label = "";
	bool max_page = false;
	for (unsigned i = 0; i < call_count; i++) {
		struct call *c = &calls[i];
		struct stack_probe_result r;
		bool image_op = c->op >= OP_IMAGE_PARSE && c->op <= OP_IMAGE_VERDEF;
		if (image_op && !image && !getauxval(AT_SYSINFO_EHDR)) {
			skip("%s: no image in this process (no vDSO)", c->label);
			continue;
		}
		if (probe_why[0]) {
			skip("%s: not measured: the stack probe cannot measure here", c->label);
			continue;
		}
		if (!stack_probe(prepare, run_call, c, &r)) {
			ok(0, "%s: %s", c->label, r.why);
			continue;
		}
		if (r.call_result < 0 && !c->may_fail) {
			ok(0, "%s: the call failed (%ld), so its depth says nothing", c->label,
			   r.call_result);
			continue;
		}
		ok(1, "%s: %s%zu bytes%s", c->label, r.page_granular ? "at most " : "", r.deepest,
		   r.call_result < 0 ? " (an error return, as expected here)" : "");
		if (r.deepest > max) {
			max = r.deepest;
			max_label = c->label;
			max_page = r.page_granular;
		}
	}
	for (unsigned k = 0; k < sizeof(races) / sizeof(races[0]); k++) {
		struct race *race = &races[k];
		struct stack_probe_result r[RACERS];
		void *args[RACERS];
		for (unsigned i = 0; i < RACERS; i++)
			args[i] = &race->calls[i];
		if (probe_why[0]) {
			skip("%s: not measured: the stack probe cannot measure here", race->label);
			continue;
		}
		stack_probe_threads(prepare, racing_call, args, RACERS, r);
		for (unsigned i = 0; i < RACERS; i++) {
			if (!r[i].measured) {
				ok(0, "%s, thread %u: %s", race->label, i, r[i].why);
			} else if (r[i].call_result < 0) {
				ok(0, "%s, thread %u: the call failed (%ld), so its depth says nothing", race->label,
				   i, r[i].call_result);
			} else {
				ok(1, "%s, thread %u: %s%zu bytes", race->label, i, r[i].page_granular ? "at most " : "",
				   r[i].deepest);
				if (r[i].deepest > max) {
					max = r[i].deepest;
					max_label = race->label;
					max_page = r[i].page_granular;
				}
			}
		}
	}
	const char *arch = vdsokit_arch_name();
	const char *paths = image ? "the synthetic image" :
			    getauxval(AT_SYSINFO_EHDR) ? "this kernel's vDSO" : "no vDSO: the syscalls";
	diag("stack-max %s %zu (%s) deepest: %s%s", arch, max, paths, max_label,
	     max_page ? " (page-granular)" : "");

	char note[160] = "";
	long bound = read_bound(&bounds, bounds != default_bounds, arch, note, sizeof(note));
	if (SANITIZED)
		skip("no bound checked: a sanitizer build's calls need the sanitizer's stack too");
	else if (probe_why[0])
		skip("no bound checked: nothing was measured (%s)", probe_why);
	else if (bound < 0)
		skip("no bound checked: %s is unreadable (%s)", bounds, strerror(errno));
	else if (bound == 0)
		skip("no bound stated for %s in %s", arch, bounds);
	else
		ok(max <= (size_t)bound, "the deepest call, %zu bytes (%s), is within the bound "
		   "stated for %s in %s: %ld bytes (%s)", max, max_label, arch, bounds, bound, note);
	return done_testing();
}
