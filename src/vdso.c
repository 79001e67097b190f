// SPDX-License-Identifier: MIT
/*
 * The process's vDSO: locate it, validate it, resolve the entry points of
 * this architecture, and publish the routes the calls take (the clock
 * functions' first call resolves their entries alone).  Every word that
 * changes after load is here: what was found (vdsokit_lib_resolved, the
 * process image) and the route table the calls read (vdsokit__routes_v3).
 *
 * Initialisation holds nothing.  A call that finds nothing resolved
 * resolves on its own and publishes: each word is stored with the value
 * every resolution computes, the status last (release).  So two threads, a
 * signal handler and the call it interrupted, or a vfork child and its
 * parent may resolve at once: they store the same values.  A resolution
 * cut short (siglongjmp, a fork that left the resolving thread behind)
 * leaves words that already hold their final values, and the next call
 * resolves again.  No word ever holds anything but its first value or its
 * final one; only a 32-bit-time entry found wrapped (after 2038) later
 * loses its routes.
 */
#include <string.h>
#include <sys/auxv.h>

#include "internal.h"
#include "image.h"

const struct arch_symbol vdsokit_lib_arch_symbols[SYM_COUNT] = ARCH_SYMBOLS;

#ifdef ARCH_TOPLEVEL_ASM
/* What the architecture writes in assembly (i386's int $0x80 stub). */
__asm__(ARCH_TOPLEVEL_ASM);
#endif

/*
 * The routes (include/vdsokit.h).  Before a resolution every clock slot
 * holds the library's first-call function, which resolves and then calls
 * what the resolution put there; every other call finds NULL and asks the
 * library.  Where the library calls the entry from assembly (powerpc, whose
 * header inlines nothing), NULL stands for the first-call function
 * (src/time.c).
 */
#if ARCH_VDSO_CALL5
#define FIRST_CALL(fn) NULL
#else
#define FIRST_CALL(fn) fn
#endif
VDSO_EXPORT struct vdsokit__routes_v3 vdsokit__routes_v3 = {
	.gettime = { [0 ... VDSOKIT__CLOCK_SLOTS - 1] = FIRST_CALL(vdsokit_lib_clock_gettime_first) },
	.getres = { [0 ... VDSOKIT__CLOCK_SLOTS - 1] = FIRST_CALL(vdsokit_lib_clock_getres_first) },
};

struct found vdsokit_lib_resolved;
/*
 * The process's image, parsed: kept by the first resolution that parsed it,
 * word by word, then vdsokit_lib_image_kept (0, then 1, with release), so a
 * later resolution reads it instead of parsing again.  Only the library
 * reads this copy; vdsokit_process_image() gives out another, stored by the
 * whole resolutions alone, so that a clock call's resolution in one thread
 * never writes what another thread is reading.
 */
static struct vdsokit_image parsed_image;
int vdsokit_lib_image_kept;
static struct vdsokit_image process_image; /* when vdsokit_lib_resolved.status is FOUND_IMAGE */
uint32_t vdsokit_lib_dropped;              /* bits of enum vdsokit_lib_sym, only ever set */

/* vdsokit_use_image(): an image chosen by the program instead of the auxv's. */
static const void *override_base;
static size_t override_size;
/*
 * Which image every resolution reads, decided once, each step a
 * compare-and-swap: vdsokit_use_image() claims the choice (CLAIMED), stores
 * its image, then makes it final (OVERRIDE); a resolution makes any choice
 * not final the auxv's (AUXV), so a use_image it interrupted, or that
 * interrupted it, fails its last step and says -EBUSY.  The word only moves
 * forward, so a resolution's loop ends within three tries.
 */
enum { IMAGE_UNDECIDED, IMAGE_CLAIMED, IMAGE_AUXV, IMAGE_OVERRIDE };
static int image_choice; /* atomic */

/* The image every resolution reads: IMAGE_AUXV or IMAGE_OVERRIDE. */
static int resolution_image(void)
{
	int c = __atomic_load_n(&image_choice, __ATOMIC_ACQUIRE);
	while (c == IMAGE_UNDECIDED || c == IMAGE_CLAIMED)
		if (__atomic_compare_exchange_n(&image_choice, &c, IMAGE_AUXV, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return IMAGE_AUXV;
	return c;
}

static int arch_machine_matches(unsigned machine)
{
#ifdef ARCH_ELF_MACHINE_ALT
	if (machine == ARCH_ELF_MACHINE_ALT)
		return 1;
#endif
	return machine == ARCH_ELF_MACHINE;
}

/*
 * getauxval as the loader bound it (LOADER_BOUND).  glibc's sets errno to ENOENT for a type the kernel did not
 * pass (AT_RSEQ_FEATURE_SIZE before 6.3, AT_SYSINFO_EHDR with vdso=0): no
 * call of the library may change errno, so it is put back.
 */
unsigned long vdsokit_lib_auxv(unsigned long type)
{
	int *error = LOADER_BOUND(__errno_location)(); /* errno's own address, bound the same way */
	int saved = *error;
	unsigned long value = LOADER_BOUND(getauxval)(type);
	*error = saved;
	return value;
}

/*
 * Largest process image accepted: vDSOs are a few pages.  The image is
 * otherwise trusted to be mapped as far as its own program headers say:
 * probing the mapping (mincore, msync) would cost a syscall at the first
 * clock read of every process, and a seccomp filter that kills on an
 * unexpected syscall would kill the program there.
 */
#define MAX_IMAGE_SIZE (256u * 1024)

/* The image: 0, -ENOENT (none), or a positive vdsokit_image_error; img is scratch. */
static int locate(struct vdsokit_image *img, const void **base, size_t *size)
{
	if (resolution_image() == IMAGE_OVERRIDE) {
		*base = override_base;
		*size = override_size;
		return *base ? 0 : -ENOENT;
	}
	*base = (const void *)vdsokit_lib_auxv(AT_SYSINFO_EHDR);
	if (!*base)
		return -ENOENT;
	/*
	 * The kernel maps at least one page there, and no Linux page is
	 * smaller than 4 KiB: the headers are read within those.
	 */
	int err = vdsokit_lib_image_extent(img, *base, 4096, size);
	if (err)
		return err;
	return *size > MAX_IMAGE_SIZE ? VDSOKIT_IMAGE_TOO_LARGE : 0;
}

/* The entries of this architecture's table in wanted (bits of enum vdsokit_lib_sym), into found. */
static void look_up_entries(const struct vdsokit_image *img, uint32_t wanted)
{
	/*
	 * The tables name one version for all or most entries (the same
	 * literal, merged by the compiler): each version is found once.
	 */
	const char *version_name = NULL;
	struct vdsokit_verdef version;
	int version_found = 0;
	for (int i = 0; i < SYM_COUNT; i++) {
		const struct arch_symbol *want = &vdsokit_lib_arch_symbols[i];
		const struct vdsokit_verdef *in = NULL;
		struct vdsokit_symbol sym;
		if (!want->name || !((wanted >> i) & 1))
			continue;
		if (want->version && (img->flags & VDSOKIT_IMAGE_HAS_VERSYM)) {
			if (want->version != version_name) {
				version_name = want->version;
				version_found = vdsokit_lib_image_find_version(img, want->version, &version) == 0;
			}
			if (!version_found)
				continue;
			in = &version;
		}
		if (vdsokit_lib_image_lookup_in(img, want->name, want->gnu_hash, in, &sym) == 0 &&
		    vdsokit_lib_image_symbol_is_callable(img, &sym)) {
			__atomic_store_n(&vdsokit_lib_resolved.addr[i], sym.address, __ATOMIC_RELAXED);
			__atomic_store_n(&vdsokit_lib_resolved.version[i], sym.version, __ATOMIC_RELAXED);
		}
	}
}

_Static_assert(sizeof(struct vdsokit_image) % sizeof(uintptr_t) == 0, "copied in words");
#define IMAGE_WORDS (sizeof(struct vdsokit_image) / sizeof(uintptr_t))

/*
 * An image copied word by word, each word read and stored whole: into a
 * shared copy, as every resolution stores it, or out of one while another
 * resolution may be storing the same values.
 */
static void copy_image(struct vdsokit_image *to, const struct vdsokit_image *from)
{
	const uintptr_t *src = (const uintptr_t *)(const void *)from;
	uintptr_t *dst = (uintptr_t *)(void *)to;
	for (size_t i = 0; i < IMAGE_WORDS; i++)
		__atomic_store_n(&dst[i], __atomic_load_n(&src[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

/* The kept image into img: whether there was one. */
static int kept_image(struct vdsokit_image *img)
{
	if (!__atomic_load_n(&vdsokit_lib_image_kept, __ATOMIC_ACQUIRE))
		return 0;
	copy_image(img, &parsed_image);
	return 1;
}

#define STORE(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)

#if ARCH_HAS_SYSINFO
/* The library's syscall entry (src/arch/i386.h): its int $0x80 stub until a resolution finds the kernel's. */
const void *vdsokit_lib_sysinfo = (const void *)vdsokit_lib_int80;

/*
 * The kernel's syscall entry, AT_SYSINFO, where it lies inside the image
 * just validated: a tool that moved or dropped the vDSO (rr, valgrind, a
 * sandbox), or an image of the program's own (vdsokit_use_image) that is
 * not the kernel's, leaves int $0x80.
 */
static void find_sysinfo(const void *base, size_t size)
{
	uintptr_t entry = vdsokit_lib_auxv(AT_SYSINFO);
	if (entry && entry - (uintptr_t)base < size)
		STORE(vdsokit_lib_sysinfo, (const void *)entry);
}
#endif

#if ARCH_VDSO_MAY_DECLINE
/*
 * Whether the 64-bit-time entry c may answer -ENOSYS, "ask the kernel": a
 * MIPS vDSO from before the generic one of 5.4, which has no clock_getres.
 * Its calls go through the library, which asks; no other 64-bit-time
 * route's entry declines, so the inlined call is a tail call of the entry.
 * (A 32-bit-time entry's -ENOSYS, o32 and n32, goes to the syscall in the
 * function that widens it, src/time.c.)
 */
static int entry_may_decline(struct choice c)
{
	return c.sym == SYM_CLOCK_GETTIME && !__atomic_load_n(&vdsokit_lib_resolved.addr[SYM_CLOCK_GETRES], __ATOMIC_RELAXED);
}

/* What such a route holds: the entry, then the syscall after its -ENOSYS. */
int vdsokit_lib_clock_gettime_declining(clockid_t clock, struct vdsokit_timespec *ts)
{
	int (*entry)(clockid_t, struct vdsokit_timespec *) =
		(int (*)(clockid_t, struct vdsokit_timespec *))(uintptr_t)vdsokit_lib_entry(SYM_CLOCK_GETTIME);
	if (likely(entry != NULL)) {
		int r = entry(clock, ts);
		if (likely(r != -ENOSYS))
			return r;
	}
	return vdsokit_lib_clock_gettime_syscall(clock, ts);
}
#endif

/*
 * A clock function's slots, each moved once from the first-call function
 * to its final one: for a clock the vDSO reads in user space, its 64-bit-
 * time entry (a MIPS one that may decline behind the library's function
 * that asks), or a 32-bit-time entry behind the function that widens it;
 * for any other clock, or without an entry, the syscall.  Where the entry
 * is called from assembly (powerpc) the library's functions are marks
 * (SLOT_SYSCALL, SLOT_TIME32).  Called again when a 32-bit-time entry is
 * dropped, to move its clocks to the syscall.
 */
static void publish_clock(clock_route_fn *slots, enum vdsokit_func fn, clock_route_fn sys, clock_route_fn time32)
{
	struct choice c = vdsokit_lib_choose(&vdsokit_lib_resolved, fn);
	uint32_t clocks = vdsokit_lib_vdso_clocks(fn);
	clock_route_fn vdso = sys;
#if ARCH_VDSO_CALL5
	sys = SLOT_SYSCALL;
	vdso = sys;
	time32 = SLOT_TIME32;
#endif
	if (c.fn && !c.time64)
		vdso = time32;
	if (c.fn && c.time64)
		vdso = (clock_route_fn)(uintptr_t)c.fn;
#if ARCH_VDSO_MAY_DECLINE
	if (c.fn && c.time64 && entry_may_decline(c))
		vdso = vdsokit_lib_clock_gettime_declining;
#endif
	for (unsigned i = 0; i < VDSOKIT__CLOCK_SLOTS; i++)
		STORE(slots[i], clock_in(clocks, (clockid_t)i) ? vdso : sys);
	/*
	 * A drop that came between the choice and these stores (another
	 * thread's call found the entry wrapped) was just overwritten: put its
	 * syscall back.  Read by a read-modify-write, ordered with the drop's
	 * own: either this one sees the drop's bit, or the drop's stores come
	 * after these.
	 */
	if (c.fn && !c.time64) {
		if ((__atomic_fetch_or(&vdsokit_lib_dropped, 0u, __ATOMIC_ACQ_REL) >> c.sym) & 1)
			for (unsigned i = 0; i < VDSOKIT__CLOCK_SLOTS; i++)
				STORE(slots[i], sys);
	}
}

static void publish_gettime(void)
{
	publish_clock(vdsokit__routes_v3.gettime, VDSOKIT_FN_CLOCK_GETTIME, vdsokit_lib_clock_gettime_syscall,
		      CLOCK_TIME32(gettime));
}

static void publish_getres(void)
{
	publish_clock(vdsokit__routes_v3.getres, VDSOKIT_FN_CLOCK_GETRES, vdsokit_lib_clock_getres_syscall,
		      CLOCK_TIME32(getres));
}

static void publish_routes(void)
{
	struct vdsokit__routes_v3 *r = &vdsokit__routes_v3;
	publish_gettime();
	publish_getres();
	struct choice c = vdsokit_lib_choose(&vdsokit_lib_resolved, VDSOKIT_FN_TIME);
	if (c.fn && c.time64)
		STORE(r->time, (int64_t (*)(int64_t *))(uintptr_t)c.fn);
	else if (c.fn)
		STORE(r->time32, (long (*)(long *))(uintptr_t)c.fn);
	else if (!ARCH_NATIVE_TIME64)
		STORE(r->time_from_coarse, 1u);
	STORE(r->rseq_cpu, vdsokit_lib_rseq_cpu());
	c = vdsokit_lib_choose(&vdsokit_lib_resolved, VDSOKIT_FN_GETCPU);
	STORE(r->getcpu, (int (*)(unsigned *, unsigned *, void *))(uintptr_t)c.fn);
	c = vdsokit_lib_choose(&vdsokit_lib_resolved, VDSOKIT_FN_GETTIMEOFDAY);
	STORE(r->gettimeofday, (int (*)(void *, void *))(uintptr_t)c.fn);
	c = vdsokit_lib_choose(&vdsokit_lib_resolved, VDSOKIT_FN_GETRANDOM);
	STORE(r->getrandom, (long (*)(void *, size_t, unsigned, void *, size_t))(uintptr_t)c.fn);
	c = vdsokit_lib_choose(&vdsokit_lib_resolved, VDSOKIT_FN_THREAD_POINTER);
	STORE(r->thread_area, (unsigned long (*)(void))(uintptr_t)c.fn);
}

/*
 * The image every resolution reads: the one a resolution kept, or located,
 * parsed, checked against this architecture and kept now.  FOUND_IMAGE, or
 * the status that says why there is none.
 */
static int find_image(struct vdsokit_image *img)
{
	if (kept_image(img))
		return FOUND_IMAGE;
	const void *base;
	size_t size;
	int err = locate(img, &base, &size);
	if (err == -ENOENT)
		return FOUND_NO_VDSO;
	if (!err)
		err = vdsokit_lib_image_parse(img, base, size); /* of this class and byte order, or WRONG_ARCH */
	if (!err && !arch_machine_matches(img->machine))
		err = VDSOKIT_IMAGE_WRONG_ARCH;
	if (err) {
		STORE(vdsokit_lib_resolved.image_error, err);
		return FOUND_BAD_IMAGE;
	}
	copy_image(&parsed_image, img);
	__atomic_store_n(&vdsokit_lib_image_kept, 1, __ATOMIC_RELEASE);
	return FOUND_IMAGE;
}

/*
 * Locate, validate, look up, publish: what every resolution computes alike,
 * so it may run again at any time.
 */
__attribute__((noinline)) void vdsokit_lib_resolve(void)
{
	struct vdsokit_image img;
	int status = find_image(&img);
	if (status == FOUND_IMAGE) {
		copy_image(&process_image, &img);
		look_up_entries(&img, ~0u);
#if ARCH_HAS_SYSINFO
		find_sysinfo(img.data, img.size);
#endif
	}
	publish_routes();
	__atomic_store_n(&vdsokit_lib_resolved.status, status, __ATOMIC_RELEASE);
}

/*
 * The clock functions' first call resolves only their routes, as musl's
 * clock_gettime resolves its one entry: the clock entries, then their
 * slots, the same values the whole resolution stores.  The status stays
 * unresolved, so any other call (and vdsokit_init) still resolves all,
 * this part again included.  bench/bench.c times it warm.
 */
__attribute__((noinline)) void vdsokit_lib_resolve_clocks(void)
{
	struct vdsokit_image img;
	if (find_image(&img) == FOUND_IMAGE) {
		look_up_entries(&img, CLOCK_SYMBOLS);
#if ARCH_HAS_SYSINFO
		find_sysinfo(img.data, img.size);
#endif
	}
	publish_gettime();
	publish_getres();
}

const struct found *vdsokit_lib_found(void)
{
	if (unlikely(__atomic_load_n(&vdsokit_lib_resolved.status, __ATOMIC_ACQUIRE) == FOUND_NOT_YET))
		vdsokit_lib_resolve();
	return &vdsokit_lib_resolved;
}

/*
 * For a call whose route it found unset: acquire, so that a resolution seen
 * finished is seen with its routes (on weakly ordered ABIs too), and the
 * call reads the route it published, not a stale NULL.
 */
void vdsokit_lib_ensure_resolved(void)
{
	if (__atomic_load_n(&vdsokit_lib_resolved.status, __ATOMIC_ACQUIRE) == FOUND_NOT_YET)
		vdsokit_lib_resolve();
}

void vdsokit_lib_drop_time32(enum vdsokit_lib_sym sym)
{
	struct vdsokit__routes_v3 *r = &vdsokit__routes_v3;
	__atomic_fetch_or(&vdsokit_lib_dropped, 1u << sym, __ATOMIC_ACQ_REL);
	switch (sym) {
	case SYM_CLOCK_GETTIME:
		publish_gettime();
		break;
	case SYM_CLOCK_GETRES:
		publish_getres();
		break;
	case SYM_TIME:
		STORE(r->time32, (long (*)(long *))0);
		STORE(r->time_from_coarse, 1u);
		break;
	case SYM_GETTIMEOFDAY:
		STORE(r->gettimeofday, (int (*)(void *, void *))0);
		break;
	default:
		break;
	}
}

VDSO_EXPORT int vdsokit_init(void)
{
	switch (vdsokit_lib_found_status(vdsokit_lib_found())) {
	case FOUND_IMAGE: return 0;
	case FOUND_NO_VDSO: return -ENOENT;
	default: return -ENOEXEC;
	}
}

VDSO_EXPORT int vdsokit_use_image(const void *base, size_t size)
{
	int c = IMAGE_UNDECIDED;
	if (!__atomic_compare_exchange_n(&image_choice, &c, IMAGE_CLAIMED, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return -EBUSY;
	override_base = base;
	override_size = size;
	c = IMAGE_CLAIMED;
	return __atomic_compare_exchange_n(&image_choice, &c, IMAGE_OVERRIDE, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
		       ? 0
		       : -EBUSY;
}

VDSO_EXPORT const struct vdsokit_image *vdsokit_process_image(void)
{
	return vdsokit_lib_found_status(vdsokit_lib_found()) == FOUND_IMAGE ? &process_image : NULL;
}

VDSO_EXPORT const char *vdsokit_arch_name(void)
{
	return ARCH_NAME;
}
