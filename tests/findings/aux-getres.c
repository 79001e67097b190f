/* SPDX-License-Identifier: MIT */
/*
 * aux-getres: a standalone reproducer for docs/kernel-findings.md#aux-getres.
 *
 * For each auxiliary clock id (CLOCK_AUX .. CLOCK_AUX_LAST, 16-23, Linux
 * 6.17+) it asks clock_getres and clock_gettime of the kernel (the raw
 * syscall) and of the vDSO (its entry called directly), and prints the four
 * answers side by side.  On a kernel built without CONFIG_POSIX_AUX_CLOCKS
 * the syscall says EINVAL for both calls, the vDSO's clock_gettime agrees,
 * and the vDSO's clock_getres answers 0 with a 1 ns resolution.
 *
 * It documents; it does not judge: the exit status is 0 whatever it finds
 * (1 only when it cannot run at all).  Needs nothing but a C library:
 *   cc -O2 -o aux-getres aux-getres.c && ./aux-getres
 * The vDSO is found through AT_SYSINFO_EHDR and its dynamic symbol table,
 * as the kernel's tools/testing/selftests/vDSO do; names are matched
 * without their version (a vDSO exports each name once).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CLOCK_AUX_FIRST 16
#define CLOCK_AUX_LAST 23

#if UINTPTR_MAX == 0xffffffffu
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
typedef Elf32_Dyn dyn_t;
typedef Elf32_Sym sym_t;
#else
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
typedef Elf64_Dyn dyn_t;
typedef Elf64_Sym sym_t;
#endif

/* The kernel's 64-bit timespec, which every entry used here takes. */
struct kts64 {
	int64_t tv_sec;
	int64_t tv_nsec;
};
typedef int vdso_fn(long clock, struct kts64 *ts);

/*
 * 64-bit ABIs: the plain entries and syscalls take the 64-bit timespec.
 * 32-bit ABIs: only the *_time64 entries and syscalls do.
 */
#if UINTPTR_MAX == 0xffffffffu
static const char *const getres_names[] = { "__vdso_clock_getres_time64", "__kernel_clock_getres_time64", NULL };
static const char *const gettime_names[] = { "__vdso_clock_gettime64", "__kernel_clock_gettime64", NULL };
#ifdef SYS_clock_getres_time64
#define SYSCALL_GETRES SYS_clock_getres_time64
#define SYSCALL_GETTIME SYS_clock_gettime64
#endif
#else
static const char *const getres_names[] = { "__vdso_clock_getres", "__kernel_clock_getres", NULL };
static const char *const gettime_names[] = { "__vdso_clock_gettime", "__kernel_clock_gettime", NULL };
#define SYSCALL_GETRES SYS_clock_getres
#define SYSCALL_GETTIME SYS_clock_gettime
#endif

struct vdso {
	uintptr_t load_offset;   /* runtime address minus link address */
	const sym_t *symtab;
	const char *strtab;
	uint32_t nsyms;
};

/* The number of dynamic symbols, from DT_HASH's nchain or by walking DT_GNU_HASH. */
static uint32_t count_symbols(const uint32_t *hash, const uint32_t *gnu_hash)
{
	if (hash)
		return hash[1];
	if (!gnu_hash)
		return 0;
	uint32_t nbuckets = gnu_hash[0], symoffset = gnu_hash[1], bloom_size = gnu_hash[2];
	const uint32_t *buckets = gnu_hash + 4 + bloom_size * (sizeof(uintptr_t) / 4);
	const uint32_t *chains = buckets + nbuckets;
	uint32_t last = 0;
	for (uint32_t b = 0; b < nbuckets; b++)
		if (buckets[b] > last)
			last = buckets[b];
	if (last < symoffset)
		return symoffset;
	while (!(chains[last - symoffset] & 1))   /* the chain's last entry has bit 0 set */
		last++;
	return last + 1;
}

static int vdso_open(struct vdso *v)
{
	const ehdr_t *eh = (const ehdr_t *)getauxval(AT_SYSINFO_EHDR);
	if (!eh)
		return -1;
	const phdr_t *ph = (const phdr_t *)((const char *)eh + eh->e_phoff);
	const dyn_t *dyn = NULL;
	uintptr_t load = 0;
	int have_load = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_load) {
			load = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
			have_load = 1;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const dyn_t *)((const char *)eh + ph[i].p_offset);
		}
	}
	if (!have_load || !dyn)
		return -1;
	const uint32_t *hash = NULL, *gnu_hash = NULL;
	v->load_offset = load;
	v->symtab = NULL;
	v->strtab = NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		uintptr_t at = load + dyn->d_un.d_ptr;
		switch (dyn->d_tag) {
		case DT_SYMTAB: v->symtab = (const sym_t *)at; break;
		case DT_STRTAB: v->strtab = (const char *)at; break;
		case DT_HASH: hash = (const uint32_t *)at; break;
		case DT_GNU_HASH: gnu_hash = (const uint32_t *)at; break;
		}
	}
	v->nsyms = count_symbols(hash, gnu_hash);
	return v->symtab && v->strtab && v->nsyms ? 0 : -1;
}

static vdso_fn *vdso_find(const struct vdso *v, const char *const *names, const char **found)
{
	for (; *names; names++)
		for (uint32_t i = 0; i < v->nsyms; i++) {
			const sym_t *s = &v->symtab[i];
			if (s->st_shndx != SHN_UNDEF && s->st_value &&
			    strcmp(v->strtab + s->st_name, *names) == 0) {
				*found = *names;
				return (vdso_fn *)(v->load_offset + s->st_value);
			}
		}
	return NULL;
}

/* "0, 1 ns" or "EINVAL" into buf: what one call answered. */
static const char *answer(char *buf, size_t size, int rc, const struct kts64 *ts, int show_ts)
{
	if (rc == 0 && show_ts)
		snprintf(buf, size, "0, %lld.%09lld s", (long long)ts->tv_sec, (long long)ts->tv_nsec);
	else if (rc == 0)
		snprintf(buf, size, "0");
	else if (rc == -EINVAL)
		snprintf(buf, size, "EINVAL");
	else if (rc == -ENODEV)
		snprintf(buf, size, "ENODEV");
	else
		snprintf(buf, size, "%d", rc);
	return buf;
}

static int syscall2(long nr, long clock, struct kts64 *ts)
{
	long rc = syscall(nr, clock, ts);
	return rc == 0 ? 0 : -errno;
}

/* What /sys says about aux clock INDEX: -1 no such file (not built in), else 0/1. */
static int aux_enabled(int index)
{
	char path[96], c = 0;
	snprintf(path, sizeof(path), "/sys/kernel/time/aux_clocks/%d/aux_clock_enable", index);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int got = fread(&c, 1, 1, f);
	fclose(f);
	return got == 1 && c == '1';
}

int main(void)
{
	struct utsname u;
	uname(&u);
	printf("aux-getres: clock_getres and clock_gettime of ids %d-%d, syscall against vDSO\n",
	       CLOCK_AUX_FIRST, CLOCK_AUX_LAST);
	printf("kernel: %s %s %s\n", u.sysname, u.release, u.machine);
	/* The sysfs directory exists exactly when CONFIG_POSIX_AUX_CLOCKS=y. */
	printf("aux clocks in this kernel: %s\n", aux_enabled(0) >= 0 ?
	       "yes (/sys/kernel/time/aux_clocks exists: CONFIG_POSIX_AUX_CLOCKS=y)" :
	       access("/sys/kernel", F_OK) == 0 ?
	       "no (/sys/kernel/time/aux_clocks is missing: CONFIG_POSIX_AUX_CLOCKS=n)" :
	       "unknown (no /sys/kernel: sysfs is not mounted)");
#ifndef SYSCALL_GETRES
	printf("result: not run (this libc's headers have no clock_getres_time64 syscall number)\n");
	return 0;
#else
	struct vdso v;
	if (vdso_open(&v) != 0) {
		printf("result: not run (no vDSO mapped, or no dynamic symbol table in it)\n");
		return 0;
	}
	const char *getres_name = NULL, *gettime_name = NULL;
	vdso_fn *vdso_getres = vdso_find(&v, getres_names, &getres_name);
	vdso_fn *vdso_gettime = vdso_find(&v, gettime_names, &gettime_name);
	if (!vdso_getres) {
		printf("result: not run (this vDSO exports no 64-bit-time clock_getres entry)\n");
		return 0;
	}
	printf("vDSO entries: %s, %s\n", getres_name, gettime_name ? gettime_name : "(no clock_gettime)");
	printf("\n%-4s %-8s  %-22s %-22s  %-14s %-14s  %s\n", "id", "enabled", "getres: syscall",
	       "getres: vDSO", "gettime: sys", "gettime: vDSO", "verdict");

	int disagree = 0;
	for (long id = CLOCK_AUX_FIRST; id <= CLOCK_AUX_LAST; id++) {
		struct kts64 sys_res = { -1, -1 }, vdso_res = { -1, -1 }, ts;
		int sys_r = syscall2(SYSCALL_GETRES, id, &sys_res);
		int vdso_r = vdso_getres(id, &vdso_res);
		int sys_t = syscall2(SYSCALL_GETTIME, id, &ts);
		int vdso_t = vdso_gettime ? vdso_gettime(id, &ts) : 0;
		int enabled = aux_enabled((int)(id - CLOCK_AUX_FIRST));
		int differs = sys_r != vdso_r ||
			      (sys_r == 0 && memcmp(&sys_res, &vdso_res, sizeof(sys_res)) != 0);
		disagree += differs;
		char a[40], b[40], c[24], d[24];
		printf("%-4ld %-8s  %-22s %-22s  %-14s %-14s  %s\n", id,
		       enabled < 0 ? "-" : enabled ? "yes" : "no",
		       answer(a, sizeof(a), sys_r, &sys_res, 1), answer(b, sizeof(b), vdso_r, &vdso_res, 1),
		       answer(c, sizeof(c), sys_t, &ts, 0),
		       vdso_gettime ? answer(d, sizeof(d), vdso_t, &ts, 0) : "-",
		       differs ? "getres DISAGREES" : "agree");
	}
	/*
	 * clock_getres(id, NULL) is the usual way to ask whether a clock
	 * exists (the kernel checks the id before the pointer).
	 */
	int sys_probe = syscall2(SYSCALL_GETRES, CLOCK_AUX_FIRST, NULL);
	int vdso_probe = vdso_getres(CLOCK_AUX_FIRST, NULL);
	char p1[24], p2[24];
	printf("\nprobe clock_getres(%d, NULL): syscall %s, vDSO %s\n", CLOCK_AUX_FIRST,
	       answer(p1, sizeof(p1), sys_probe, NULL, 0), answer(p2, sizeof(p2), vdso_probe, NULL, 0));
	if (disagree)
		printf("result: the vDSO's clock_getres disagrees with the syscall for %d of %d ids "
		       "(docs/kernel-findings.md#aux-getres)\n", disagree,
		       CLOCK_AUX_LAST - CLOCK_AUX_FIRST + 1);
	else
		printf("result: the vDSO's clock_getres agrees with the syscall for all %d ids\n",
		       CLOCK_AUX_LAST - CLOCK_AUX_FIRST + 1);
	return 0;
#endif
}
