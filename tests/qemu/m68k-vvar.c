/* SPDX-License-Identifier: MIT */
/*
 * m68k-vvar — in the m68k-vdso guest, the vDSO's data pages (the thread
 * pointer page at AT_SYSINFO_EHDR - 4096, the time page below it) cannot
 * be pinned or dumped: the thread pointer page holds whichever task runs
 * when it is read, so a pinned copy read later (O_DIRECT, vmsplice into a
 * pipe, process_vm_readv) would show another task's value.
 *   - process_vm_readv from either page fails with EFAULT (it pins the
 *     remote pages with get_user_pages);
 *   - vmsplice of the thread pointer page into a pipe fails with EFAULT;
 *   - a core dump of a process holds nothing of them (the kernel dumps
 *     named special mappings, but writes a hole for pages it cannot get:
 *     all zero), while it holds the vDSO's text;
 *   - and a plain load still reads them (the pages are there).
 * Without a vDSO (the m68k guest, mainline) it skips.
 *
 * m68k only: built by tests/qemu/matrix.t like m68k-tls.  Prints TAP.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"

#ifndef __m68k__
#error "m68k-vvar is an m68k test: build it with m68k-linux-gnu-gcc"
#endif

#define PAGE 4096
#define CORE_DIR "/tmp/m68k-vvar-core"

static void check_not_pinnable(unsigned long addr, const char *what)
{
	char buf[16];
	struct iovec local = { buf, sizeof(buf) }, remote = { (void *)addr, sizeof(buf) };
	errno = 0;
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	ok(n == -1 && errno == EFAULT, "process_vm_readv from the %s page (%#lx): %s", what, addr,
	   n == -1 ? strerror(errno) : "read it");
}

static void check_not_spliceable(unsigned long addr, const char *what)
{
	int fds[2];
	if (pipe(fds) != 0) {
		skip("vmsplice of the %s page: pipe: %s", what, strerror(errno));
		return;
	}
	struct iovec iov = { (void *)addr, PAGE };
	errno = 0;
	ssize_t n = vmsplice(fds[1], &iov, 1, 0);
	ok(n == -1 && errno == EFAULT, "vmsplice of the %s page into a pipe: %s", what,
	   n == -1 ? strerror(errno) : "spliced it");
	close(fds[0]);
	close(fds[1]);
}

/* The core file's bytes, or NULL. */
static unsigned char *read_file(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf32_Ehdr)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	unsigned char *p = malloc(st.st_size);
	size_t got = 0;
	while (p && got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, st.st_size - got);
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (!p || got != (size_t)st.st_size) {
		free(p);
		return NULL;
	}
	*size = got;
	return p;
}

/* The PT_LOAD of the core covering ADDR, or NULL. */
static const Elf32_Phdr *load_at(const unsigned char *core, size_t size, unsigned long addr)
{
	const Elf32_Ehdr *eh = (const Elf32_Ehdr *)core;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_type != ET_CORE ||
	    eh->e_phoff > size || eh->e_phnum > (size - eh->e_phoff) / sizeof(Elf32_Phdr))
		return NULL;
	const Elf32_Phdr *ph = (const Elf32_Phdr *)(core + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr &&
		    addr - ph[i].p_vaddr < ph[i].p_memsz)
			return &ph[i];
	return NULL;
}

/*
 * The non-zero bytes the core holds of the page at ADDR: 0 when its
 * PT_LOAD leaves the page out (p_filesz) or the kernel wrote a hole (a
 * VM_IO | VM_PFNMAP page that get_dump_page() refuses); the page's
 * content otherwise.
 */
static unsigned long dumped_nonzero(const unsigned char *core, size_t size, unsigned long addr)
{
	const Elf32_Phdr *ph = load_at(core, size, addr);
	if (!ph)
		return 0;
	unsigned long from = addr - ph->p_vaddr, nonzero = 0;
	for (unsigned long i = from; i < from + PAGE && i < ph->p_filesz; i++)
		if (ph->p_offset + i < size && core[ph->p_offset + i] != 0)
			nonzero++;
	return nonzero;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void check_core_dump(unsigned long ehdr)
{
	char saved[256] = "";
	int fd = open("/proc/sys/kernel/core_pattern", O_RDONLY);
	if (fd < 0) {
		skip("core dump: no /proc/sys/kernel/core_pattern (%s)", strerror(errno));
		skip("core dump: the vDSO text");
		return;
	}
	ssize_t n = read(fd, saved, sizeof(saved) - 1);
	close(fd);
	saved[n > 0 ? n : 0] = '\0';
	mkdir(CORE_DIR, 0700);
	if (write_text("/proc/sys/kernel/core_pattern", CORE_DIR "/core") != 0) {
		skip("core dump: cannot set core_pattern (%s)", strerror(errno));
		skip("core dump: the vDSO text");
		return;
	}
	unlink(CORE_DIR "/core");
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
		setrlimit(RLIMIT_CORE, &unlimited);
		/* Touch the data pages first, so that they are mapped when dumped. */
		volatile unsigned long sink = *(volatile unsigned long *)(ehdr - PAGE) +
					      *(volatile unsigned long *)(ehdr - 2 * PAGE);
		(void)sink;
		abort();
	}
	int status = 0;
	waitpid(pid, &status, 0);
	write_text("/proc/sys/kernel/core_pattern", saved);

	size_t size = 0;
	unsigned char *core = read_file(CORE_DIR "/core", &size);
	if (!WIFSIGNALED(status) || !WCOREDUMP(status) || !core) {
		skip("core dump: the child left no core (status %#x%s)", status,
		     core ? "" : ", no file");
		skip("core dump: the vDSO text");
		free(core);
		return;
	}
	unsigned long tp_nonzero = dumped_nonzero(core, size, ehdr - PAGE);
	unsigned long time_nonzero = dumped_nonzero(core, size, ehdr - 2 * PAGE);
	ok(tp_nonzero == 0 && time_nonzero == 0,
	   "a core dump (%zu bytes) holds nothing of the data pages: %lu non-zero bytes of the "
	   "thread pointer page, %lu of the time page", size, tp_nonzero, time_nonzero);
	const Elf32_Phdr *text = load_at(core, size, ehdr);
	ok(text && text->p_filesz >= SELFMAG && text->p_offset <= size - SELFMAG &&
		   memcmp(core + text->p_offset + (ehdr - text->p_vaddr), ELFMAG, SELFMAG) == 0,
	   "... while it holds the vDSO's text (%u bytes, its ELF header)", text ? text->p_filesz : 0);
	free(core);
	unlink(CORE_DIR "/core");
}

/* 1 when /proc/self/maps shows [vvar] as the two pages right below EHDR. */
static int data_pages_below(unsigned long ehdr)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[256];
	int found = 0;
	while (maps && fgets(line, sizeof(line), maps)) {
		unsigned long start, end;
		if (strstr(line, "[vvar]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			found = end == ehdr && start <= ehdr - 2 * PAGE;
	}
	if (maps)
		fclose(maps);
	return found;
}

int main(void)
{
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
	if (!ehdr) {
		printf("1..0 # SKIP no vDSO on this kernel (no AT_SYSINFO_EHDR)\n");
		return 0;
	}
	if (!data_pages_below(ehdr)) {
		printf("1..0 # SKIP no [vvar] mapping of two pages right below the vDSO\n");
		return 0;
	}
	unsigned long tp_page = ehdr - PAGE, time_page = ehdr - 2 * PAGE;
	unsigned long want = (unsigned long)syscall(SYS_get_thread_area);
	ok(*(volatile unsigned long *)tp_page == want,
	   "a plain load reads the thread pointer page: %#lx, get_thread_area %#lx",
	   *(volatile unsigned long *)tp_page, want);
	check_not_pinnable(tp_page, "thread pointer");
	check_not_pinnable(time_page, "time data");
	check_not_spliceable(tp_page, "thread pointer");
	check_core_dump(ehdr);
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
