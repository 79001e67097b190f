// SPDX-License-Identifier: MIT
/*
 * The library's two builds of the image parser agree, on the architecture
 * this runs on: the public one (src/image.c), which reads images of any
 * class and byte order, and the one the library reads its own image with
 * (src/image_own.c), built for this ABI's alone.  The fuzz target runs on
 * the host alone; this runs its body (fuzz/fuzz_image.c, which traps when
 * the two disagree) as a plain program, natively, as i686 (i386.t) and on
 * nine other architectures under qemu-user (arches.t), five of them 32-bit
 * or big-endian (arm, ppc, s390x, sparc64, m68k), where so is the own build.
 *
 * Inputs, each ending against a PROT_NONE page so that a read past it
 * faults: the synthetic both.so of every architecture (versioned; DT_HASH
 * and DT_GNU_HASH, DT_HASH alone on mips), the real kernels' images
 * (tests/qemu/images) and this process's vDSO, each once as it is; then
 * the both.so of this ABI (its class, byte order and machine) with each
 * byte set to 0x00, 0x01, 0xff and flipped in its top bit, and every
 * truncation of it.  A trap (SIGILL, SIGTRAP; SIGFPE on s390x, where it is
 * a compare-and-trap; SIGABRT), a fault, or no answer in 300 s ends that
 * input: a "not ok" naming it.
 */
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../tap.h"
#include "internal.h" /* ARCH_* of this ABI */
#include "image.h"    /* vdsokit_lib_image_extent: the size of this process's vDSO */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A trap (the fuzz body's: the two parsers disagree), a fault (a read
 * outside the image) or the alarm ends the input that raised it: the
 * handler jumps back into run(), which returns the signal.
 */
static sigjmp_buf escape;
static volatile sig_atomic_t running;

static void ended(int sig)
{
	if (!running)
		_exit(3);
	running = 0;
	siglongjmp(escape, sig);
}

static const char *why(int sig)
{
	return sig == SIGALRM ? "no answer in 300 s" : "the two parsers disagree, or one read outside the image";
}

/* A buffer whose last byte is the last one before a PROT_NONE page. */
static unsigned char *region;
static size_t region_room;

static int make_region(size_t most)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	region_room = (most + page - 1) / page * page + page;
	region = mmap(NULL, region_room + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return region != MAP_FAILED && mprotect(region + region_room, page, PROT_NONE) == 0 ? 0 : -1;
}

/* The fuzz body on the input, ending against the guard page: 0, or the signal that ended it. */
static int run(const unsigned char *bytes, size_t size)
{
	unsigned char *at = region + region_room - size;
	memmove(at, bytes, size);
	int sig = sigsetjmp(escape, 1);
	if (sig)
		return sig;
	running = 1;
	LLVMFuzzerTestOneInput(at, size);
	running = 0;
	return 0;
}

/*
 * Every byte changed four ways, then every truncation, until one ends by a
 * signal: 0 and the number of inputs in *inputs, or the signal, the input
 * named in failed.
 */
static int mutate(const char *name, const unsigned char *image, size_t size, long *inputs, char *failed,
		  size_t failed_size)
{
	static const int values[] = { 0x00, 0x01, 0xff, -1 /* the top bit flipped */ };
	unsigned char *copy = malloc(size);
	int sig = 0;
	*inputs = 0;
	if (!copy)
		return SIGABRT;
	memcpy(copy, image, size);
	for (size_t i = 0; i < size; i++) {
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			unsigned char was = copy[i], now = values[v] < 0 ? was ^ 0x80 : (unsigned char)values[v];
			if (now == was)
				continue;
			copy[i] = now;
			sig = run(copy, size);
			copy[i] = was;
			++*inputs;
			if (sig) {
				snprintf(failed, failed_size, "%s, byte %zu set to 0x%02x", name, i, now);
				goto out;
			}
		}
	}
	for (size_t n = 0; n < size && !sig; n++) {
		sig = run(image, n);
		++*inputs;
		if (sig)
			snprintf(failed, failed_size, "%s, its first %zu bytes", name, n);
	}
out:
	free(copy);
	return sig;
}

static int of_this_abi(const unsigned char *d, size_t size)
{
	if (size < 20 || memcmp(d, "\177ELF", 4) != 0)
		return 0;
	if ((d[4] == 2 ? 64 : 32) != ARCH_ELF_CLASS || (d[5] == 2) != ARCH_BIG_ENDIAN)
		return 0;
	unsigned machine = ARCH_BIG_ENDIAN ? (unsigned)d[18] << 8 | d[19] : (unsigned)d[19] << 8 | d[18];
#ifdef ARCH_ELF_MACHINE_ALT
	if (machine == ARCH_ELF_MACHINE_ALT)
		return 1;
#endif
	return machine == ARCH_ELF_MACHINE;
}

/* The file at path into image: its size, or 0 (said, as a skip or a failure). */
static size_t read_image(const char *path, unsigned char *image, size_t room)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		skip("%s: not built or not found", path);
		return 0;
	}
	size_t size = fread(image, 1, room, f);
	int whole = feof(f) && size > 0;
	fclose(f);
	return ok(whole, "%s: read (%zu bytes, at most %zu)", path, size, room) ? size : 0;
}

static void run_once(const char *what, const unsigned char *image, size_t size)
{
	int sig = run(image, size);
	ok(!sig, "%s: the two parsers agree%s%s", what, sig ? ": no, " : "", sig ? why(sig) : "");
}

int main(void)
{
	static const char *const dirs[] = {
		"aarch64", "arm", "i386", "loongarch64", "m68k", "mips64", "mipsn32", "mipso32", "ppc32",
		"ppc64", "ppc64le", "riscv32", "riscv64", "s390x", "sparc32", "sparc64", "x32", "x86_64",
	};
	const char *build = getenv("VDSOKIT_BUILD") ? getenv("VDSOKIT_BUILD") : "build";
	const char *images = getenv("VDSOKIT_IMAGES");
	static unsigned char image[1 << 16];
	int mutated = 0, found = 0;

	if (make_region(sizeof(image)) != 0) {
		ok(0, "a buffer before a PROT_NONE page");
		return done_testing();
	}
	/* SIGFPE: on s390x __builtin_trap is a compare-and-trap. */
	static const int endings[] = { SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGALRM };
	for (size_t i = 0; i < sizeof(endings) / sizeof(endings[0]); i++)
		signal(endings[i], ended);
	alarm(300);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[PATH_MAX];
		if (images)
			snprintf(path, sizeof(path), "%s/%s/both.so", images, dirs[i]);
		else
			snprintf(path, sizeof(path), "%s/images/%s/both.so", build, dirs[i]);
		size_t size = read_image(path, image, sizeof(image));
		if (!size)
			continue;
		found++;
		run_once(path, image, size);
		if (of_this_abi(image, size)) {
			long inputs;
			char failed[PATH_MAX + 64];
			int sig = mutate(path, image, size, &inputs, failed, sizeof(failed));
			if (!ok(!sig, "%s, of this ABI (%s): the two parsers agree on %ld changed copies", path,
				ARCH_NAME, inputs))
				diag("%s: %s (signal %d)", failed, why(sig), sig);
			mutated++;
		}
	}
	static const char *const kernels[] = { "amd64", "arm64", "armhf", "mips64el", "ppc64le", "s390x", "sparc64" };
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "tests/qemu/images/%s.so", kernels[i]);
		size_t size = read_image(path, image, sizeof(image));
		if (size)
			run_once(path, image, size);
	}
	const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct vdsokit_image scratch;
	size_t extent;
	if (vdso && vdsokit_lib_image_extent(&scratch, vdso, 4096, &extent) == 0 && extent <= sizeof(image)) {
		memcpy(image, vdso, extent);
		run_once("this process's vDSO", image, extent);
	} else {
		skip("this process has no vDSO of its ABI (qemu-user, valgrind)");
	}
	if (found)
		ok(mutated > 0, "an image of this ABI (%s) was changed byte by byte (%d)", ARCH_NAME, mutated);
	else
		skip("no synthetic image at all (make images): none of this ABI to change");
	return done_testing();
}
