// SPDX-License-Identifier: MIT
/*
 * Process-wide state: locate the vDSO once, validate it, resolve every
 * entry point of this architecture, and choose, per library function,
 * which entry (or the syscall) serves it.
 */
#include <string.h>
#include <sys/auxv.h>

#include "internal.h"
#include "image.h"

const struct arch_symbol vdsokit_arch_symbols[SYM_COUNT] = ARCH_SYMBOLS;

/* What programs inlining vdsokit_clock_gettime read (include/vdsokit.h). */
VDSO_EXPORT struct vdsokit__fastpath vdsokit__fast_v1;
uint32_t vdsokit__gettime_clocks, vdsokit__getres_clocks; /* atomic; internal.h */

static int arch_machine_matches(unsigned machine)
{
#ifdef ARCH_ELF_MACHINE_ALT
	if (machine == ARCH_ELF_MACHINE_ALT)
		return 1;
#endif
	return machine == ARCH_ELF_MACHINE;
}

/* vdsokit_use_image(): an image chosen by the program instead of the auxv's. */
static const void *override_base;
static size_t override_size;
static int override_set;

/*
 * Largest process image accepted: vDSOs are a few pages.  The image is
 * otherwise trusted to be mapped as far as its own program headers say:
 * probing the mapping (mincore, msync) would cost a syscall at the first
 * clock read of every process, and a seccomp filter that kills on an
 * unexpected syscall would kill the program there.
 */
#define MAX_IMAGE_SIZE (256u * 1024)

/*
 * getauxval, called through its address as the loader bound it (GOT) rather
 * than through a lazily bound PLT slot: that would run the dynamic linker's
 * symbol lookup, and fault in its pages, inside the library's first call.
 * The empty asm keeps the compiler from making the call direct again.
 */
unsigned long vdsokit__auxv(unsigned long type)
{
	unsigned long (*fn)(unsigned long) = getauxval;
	__asm__("" : "+r"(fn));
	return fn(type);
}

static int locate(const void **base, size_t *size)
{
	if (override_set) {
		*base = override_base;
		*size = override_size;
		return *base ? 0 : -ENOENT;
	}
	*base = (const void *)vdsokit__auxv(AT_SYSINFO_EHDR);
	if (!*base)
		return -ENOENT;
	/*
	 * The kernel maps at least one page there, and no Linux page is
	 * smaller than 4 KiB: the headers are read within those (asking the
	 * auxv for AT_PAGESZ would walk it once more in the first call).
	 */
	int err = vdsokit__image_extent(*base, 4096, size);
	if (err)
		return err;
	if (*size > MAX_IMAGE_SIZE)
		return VDSOKIT_IMAGE_TOO_LARGE;
	return 0;
}

/* Every known symbol of this architecture, resolved or NULL: only while choosing. */
struct resolved_symbols {
	const void *addr[SYM_COUNT];
	const char *version[SYM_COUNT]; /* version matched, NULL unversioned */
};

static void resolve_symbols(const struct vdsokit_image *img, struct resolved_symbols *r)
{
	/*
	 * The tables name one version for all or most entries (the same
	 * literal, merged by the compiler): each version is found once.
	 */
	const char *version_name = NULL;
	struct vdsokit_verdef version;
	int version_found = 0;
	for (int i = 0; i < SYM_COUNT; i++) {
		const struct arch_symbol *want = &vdsokit_arch_symbols[i];
		const struct vdsokit_verdef *in = NULL;
		struct vdsokit_symbol sym;
		r->addr[i] = NULL;
		r->version[i] = NULL;
		if (!want->name)
			continue;
		if (want->version && (img->flags & VDSOKIT_IMAGE_HAS_VERSYM)) {
			if (want->version != version_name) {
				version_name = want->version;
				version_found = vdsokit__image_find_version(img, want->version, &version) == 0;
			}
			if (!version_found)
				continue;
			in = &version;
		}
		if (vdsokit__image_lookup_in(img, want->name, want->gnu_hash, in, &sym) == 0 &&
		    vdsokit__image_symbol_is_callable(img, &sym)) {
			r->addr[i] = sym.address;
			r->version[i] = sym.version;
		}
	}
}

/* The reason a missing entry is missing: never on this arch, or not in this kernel. */
static enum vdsokit_reason absent(enum vdsokit_sym sym)
{
	return vdsokit_arch_symbols[sym].name ? VDSOKIT_REASON_SYMBOL_ABSENT : VDSOKIT_REASON_NOT_ON_ARCH;
}

static struct vdsokit_entry entry_of(const struct resolved_symbols *r, enum vdsokit_sym sym,
				   unsigned time64, enum vdsokit_reason reason)
{
	return (struct vdsokit_entry){ .fn = r->addr[sym], .version = r->version[sym], .sym = sym,
				       .time64 = time64, .reason = reason };
}

static struct vdsokit_entry entry_native(const struct resolved_symbols *r, enum vdsokit_sym sym)
{
	return entry_of(r, sym, ARCH_NATIVE_TIME64, r->addr[sym] ? VDSOKIT_REASON_OK : absent(sym));
}

/*
 * A time function with a 64-bit-time entry (sym64) and a native one: on
 * 64-bit architectures the native entry is already 64-bit.  On 32-bit
 * ones, the 64-bit entry first, then the 32-bit one, which the call
 * checks for overflow.  On arm the 64-bit entry counts only beside the
 * 32-bit one or clock_getres_time64 (pre-5.8 kernels exported it broken
 * on its own).
 */
static struct vdsokit_entry entry_time(const struct resolved_symbols *r, enum vdsokit_sym native,
				       enum vdsokit_sym sym64)
{
	if (ARCH_NATIVE_TIME64)
		return entry_native(r, native);

	const void *fn32 = r->addr[native], *fn64 = r->addr[sym64];
	/* arm: the broken pre-5.8 images had neither of the other two. */
	if (fn64 && ARCH_GETTIME64_NEEDS_32 && !fn32 && !r->addr[SYM_CLOCK_GETRES64]) {
		struct vdsokit_entry e = entry_of(r, sym64, 1, VDSOKIT_REASON_UNTRUSTED);
		e.fn = NULL;
		return e;
	}
	if (fn64)
		return entry_of(r, sym64, 1, VDSOKIT_REASON_OK);
	if (fn32)
		return entry_of(r, native, 0, VDSOKIT_REASON_TIME32);
	return entry_of(r, sym64, 1, vdsokit_arch_symbols[sym64].name ? absent(sym64) : absent(native));
}

/* An entry that would only make the syscall: the library makes it directly, and says so. */
static void skip_entry_that_is_syscall(struct vdsokit_entry *e)
{
	if (e->fn) {
		e->fn = NULL;
		e->reason = VDSOKIT_REASON_ENTRY_IS_SYSCALL;
	}
}

static void choose_entries(struct vdsokit_state *s, const struct resolved_symbols *r)
{
	s->gettime = entry_time(r, SYM_CLOCK_GETTIME, SYM_CLOCK_GETTIME64);
	s->getres = entry_time(r, SYM_CLOCK_GETRES, SYM_CLOCK_GETRES64);
	s->gettime.clocks = ARCH_VDSO_CLOCKS;
	s->getres.clocks = ARCH_VDSO_GETRES_CLOCKS;
	/* gettimeofday and time have no 64-bit entries on 32-bit kernels. */
	s->gettimeofday = entry_native(r, SYM_GETTIMEOFDAY);
	s->time = entry_native(r, SYM_TIME);
	s->getcpu = entry_native(r, SYM_GETCPU);
	if (ARCH_VDSO_GETCPU_IS_SYSCALL)
		skip_entry_that_is_syscall(&s->getcpu);
	/* gettimeofday reads REALTIME: where the vDSO cannot (m68k), its entry would only enter the kernel. */
	if (!(ARCH_VDSO_CLOCKS & CLOCK_BIT(CLOCK_REALTIME)))
		skip_entry_that_is_syscall(&s->gettimeofday);
	s->getrandom = entry_native(r, SYM_GETRANDOM);
	s->thread_area = entry_native(r, SYM_GET_THREAD_AREA);
}

static void mark_all(struct vdsokit_state *s, enum vdsokit_reason why)
{
	struct vdsokit_entry *all[] = { &s->gettime, &s->getres, &s->gettimeofday, &s->time,
				     &s->getcpu, &s->getrandom, &s->thread_area };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		all[i]->reason = why;
}

void vdsokit_resolve(struct vdsokit_state *s)
{
	const void *base;
	size_t size;

	memset(s, 0, sizeof(*s));
	vdsokit__cpu_resolve(s); /* the rseq area needs no vDSO */
	int err = locate(&base, &size);
	if (err == -ENOENT) {
		s->image_reason = VDSOKIT_REASON_NO_VDSO;
		mark_all(s, VDSOKIT_REASON_NO_VDSO);
		return;
	}
	if (!err)
		err = vdsokit_image_parse(&s->parsed, base, size);
	if (!err && (s->parsed.elf_class != ARCH_ELF_CLASS || s->parsed.big_endian != ARCH_BIG_ENDIAN ||
		     !arch_machine_matches(s->parsed.machine)))
		err = VDSOKIT_IMAGE_WRONG_ARCH;
	if (err) {
		s->image_reason = VDSOKIT_REASON_BAD_IMAGE;
		s->image_error = err;
		mark_all(s, VDSOKIT_REASON_BAD_IMAGE);
		return;
	}
	s->image = &s->parsed;
	s->image_reason = VDSOKIT_REASON_OK;
	struct resolved_symbols found;
	resolve_symbols(s->image, &found);
	choose_entries(s, &found);
}

/*
 * Initialisation.  The first caller claims the one static state, resolves
 * into it and publishes it (a pointer stored with release order: the one
 * readiness signal); nobody waits.  A caller that finds the state claimed
 * by another thread of its process takes the syscall for that call (an
 * empty state) instead of waiting for it.  The claim names the claiming
 * process: a fork child (fork, _Fork, syscall(SYS_fork), clone) whose
 * parent forked while a thread was initialising finds a claim of another
 * process, which no thread of its own will finish, and takes it over.
 * Naming it costs the first call one getpid(2) (+1.2 us at the median on
 * a loaded x86_64 VM whose syscalls cost ~1 us, docs/performance.md); the
 * other way to see a fork child without a syscall, a claim in a page the
 * kernel wipes in every child (MADV_WIPEONFORK), put a page fault into the
 * first call there (26 us), or into every start-up if touched at load.
 * A vfork child that calls the library while another thread of its parent
 * initialises takes the claim over too, and both write the same state.
 * The only thing that changes after publication, a 32-bit entry's
 * overflow, lives outside the state (vdsokit__sym_overflowed).
 */
static struct vdsokit_state published_state;
const struct vdsokit_state *vdsokit__published; /* atomic: the one readiness signal */
int vdsokit__sym_overflowed[SYM_COUNT];
static long init_claim;   /* atomic: pid of the process filling published_state, 0: none */
static int init_started;  /* atomic: vdsokit_use_image() is too late once set */

/* What a call sees while another thread of its process initialises: no vDSO. */
static const struct vdsokit_state vdsokit_empty = {
	.image_reason = VDSOKIT_REASON_NO_VDSO,
	.gettime = { .reason = VDSOKIT_REASON_NO_VDSO },
	.getres = { .reason = VDSOKIT_REASON_NO_VDSO },
	.gettimeofday = { .reason = VDSOKIT_REASON_NO_VDSO },
	.time = { .reason = VDSOKIT_REASON_NO_VDSO },
	.getcpu = { .reason = VDSOKIT_REASON_NO_VDSO },
	.getrandom = { .reason = VDSOKIT_REASON_NO_VDSO },
	.thread_area = { .reason = VDSOKIT_REASON_NO_VDSO },
};

/*
 * The copy the inline fast path of programs reads (include/vdsokit.h),
 * derived from the published state: each field valid on its own (0 or
 * NULL: take the library's function), the clock masks stored last.
 */
static void publish_fast_path(const struct vdsokit_state *s)
{
	vdsokit__cpu_publish_fast_path(s);
	vdsokit__time_publish_fast_path(s);
	uint32_t gettime_clocks = entry_clocks(&s->gettime);
	if (LIB_FASTPATH_INLINE) {
		/* A program calls the entry with a vdsokit_timespec: 64-bit time only. */
		int gettime64 = ARCH_NATIVE_TIME64 || s->gettime.time64;
		int getres64 = ARCH_NATIVE_TIME64 || s->getres.time64;
		if (gettime64)
			vdsokit__fast_v1.gettime = (vdsokit_fast_clock_fn)(uintptr_t)s->gettime.fn;
		if (getres64)
			vdsokit__fast_v1.getres = (vdsokit_fast_clock_fn)(uintptr_t)s->getres.fn;
		if (LIB_TIME_INLINE)
			__atomic_store_n(&vdsokit__fast_v1.time,
					 (vdsokit_fast_time_fn)(uintptr_t)s->time.fn, __ATOMIC_RELAXED);
		__atomic_store_n(&vdsokit__fast_v1.getres_clocks,
				 (getres64 ? entry_clocks(&s->getres) : 0) | VDSOKIT__FAST_READY,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&vdsokit__fast_v1.gettime_clocks,
				 (gettime64 ? gettime_clocks : 0) | VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&vdsokit__getres_clocks, entry_clocks(&s->getres) | VDSOKIT__FAST_READY,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&vdsokit__gettime_clocks, gettime_clocks | VDSOKIT__FAST_READY,
			 __ATOMIC_RELEASE);
}

/* Claims the static state for this process: 1, or 0 when a thread of this process has it. */
static int claim_init(void)
{
	long me = sys0(__NR_getpid), seen = 0;
	while (!__atomic_compare_exchange_n(&init_claim, &seen, me, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED))
		if (seen == me)
			return 0;
	/* Free, or an ancestor's: ours now (seen is the value replaced). */
	return 1;
}

const struct vdsokit_state *vdsokit_state_slow(void)
{
	__atomic_store_n(&init_started, 1, __ATOMIC_RELAXED);
	if (!claim_init()) {
		const struct vdsokit_state *s = __atomic_load_n(&vdsokit__published, __ATOMIC_ACQUIRE);
		return s ? s : &vdsokit_empty;
	}
	const struct vdsokit_state *s = __atomic_load_n(&vdsokit__published, __ATOMIC_ACQUIRE);
	if (s)
		return s; /* published while we claimed */
	vdsokit_resolve(&published_state);
	__atomic_store_n(&vdsokit__published, &published_state, __ATOMIC_RELEASE);
	publish_fast_path(&published_state);
	return &published_state;
}

void vdsokit__entry_overflowed(const struct vdsokit_entry *e)
{
	__atomic_store_n(&vdsokit__sym_overflowed[e->sym], 1, __ATOMIC_RELAXED);
	/* Still ready, but no clock is read through that entry any more. */
	const struct vdsokit_state *s = vdsokit_state();
	if (e == &s->gettime) {
		__atomic_store_n(&vdsokit__fast_v1.gettime_clocks, VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
		__atomic_store_n(&vdsokit__gettime_clocks, VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
	}
	if (e == &s->getres) {
		__atomic_store_n(&vdsokit__fast_v1.getres_clocks, VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
		__atomic_store_n(&vdsokit__getres_clocks, VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
	}
}

/* The verdict vdsokit_init() returns for a state. */
static int init_verdict(const struct vdsokit_state *s)
{
	if (s->image)
		return 0;
	return s->image_reason == VDSOKIT_REASON_NO_VDSO ? -ENOENT : -ENOEXEC;
}

/*
 * Another thread of this process (or the frame this signal handler
 * interrupted) is publishing: the same work on the stack gives the verdict
 * now, without waiting for it.  Out of line, so that the state on the stack
 * deepens only this rare path, not every first call through vdsokit_init().
 */
static __attribute__((noinline)) int verdict_of_own_resolution(void)
{
	struct vdsokit_state mine;
	vdsokit_resolve(&mine);
	return init_verdict(&mine);
}

VDSO_EXPORT int vdsokit_init(void)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (s != &vdsokit_empty)
		return init_verdict(s);
	return verdict_of_own_resolution();
}

VDSO_EXPORT int vdsokit_use_image(const void *base, size_t size)
{
	if (__atomic_load_n(&init_started, __ATOMIC_RELAXED))
		return -EBUSY;
	override_base = base;
	override_size = size;
	override_set = 1;
	return 0;
}

VDSO_EXPORT const struct vdsokit_image *vdsokit_process_image(void)
{
	return vdsokit_state()->image;
}

VDSO_EXPORT const char *vdsokit_arch_name(void)
{
	return ARCH_NAME;
}
