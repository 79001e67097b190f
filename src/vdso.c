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

/*
 * Initialisation is lock-free: every caller that finds the library not
 * ready takes a slot of its own, resolves into it, and the first to finish
 * publishes its slot as the state; the others use the published one.  A
 * signal handler that interrupted an initialisation thus initialises (or
 * reads the state) on its own instead of waiting for code that cannot run
 * until it returns.  More callers at once than slots (a burst of threads
 * starting together) take the syscall until the state is published;
 * vdsokit_init() waits for it then, unless its own thread holds a slot.
 */
#define INIT_SLOTS 4
static struct vdsokit_state init_slots[INIT_SLOTS];
/* Who took each slot (atomic; NULL: free): a thread's identity, below. */
static const void *init_slot_owner[INIT_SLOTS];

/* This thread's identity: its thread pointer, or its id where no register has it. */
static const void *this_thread(void)
{
#if ARCH_HAS_TP_REGISTER
	return arch_thread_pointer();
#else
	return (const void *)sys0(__NR_gettid);
#endif
}

/* Claims a free slot for this thread: its index, or -1 when all are taken. */
static int claim_slot(const void *me)
{
	for (int i = 0; i < INIT_SLOTS; i++) {
		const void *free_slot = NULL;
		if (__atomic_compare_exchange_n(&init_slot_owner[i], &free_slot, me, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return i;
	}
	return -1;
}

static int this_thread_holds_a_slot(const void *me)
{
	for (int i = 0; i < INIT_SLOTS; i++)
		if (__atomic_load_n(&init_slot_owner[i], __ATOMIC_RELAXED) == me)
			return 1;
	return 0;
}
const struct vdsokit_state *vdsokit__published; /* atomic: the state, NULL until ready */
/* What programs inlining vdsokit_clock_gettime read (include/vdsokit.h). */
VDSO_EXPORT struct vdsokit__fastpath vdsokit__fast;

/* What the library saw while nobody has initialised it yet: no vDSO. */
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

/* Makes s the library's state; s itself, or the state another caller published first. */
static const struct vdsokit_state *publish(const struct vdsokit_state *s)
{
	const struct vdsokit_state *first = NULL;
	if (!__atomic_compare_exchange_n(&vdsokit__published, &first, s, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return first;
	/*
	 * The clock_gettime fast path (here and inlined in programs,
	 * include/vdsokit.h) reads its own copy, published last: a thread that
	 * sees its mask sees the state.
	 */
	if (s->rseq_covers & RSEQ_COVERS_CPU) {
		/* cpu_id is the second u32 of struct rseq. */
		vdsokit__fast.rseq_cpu_offset = s->rseq_offset + 4;
		__atomic_store_n(&vdsokit__fast.rseq_cpu, 1, __ATOMIC_RELEASE);
	}
	if (LIB_FASTPATH_INLINE) {
		vdsokit__fast.gettime = (vdsokit_fast_clock_fn)(uintptr_t)s->gettime.fn;
		vdsokit__fast.getres = (vdsokit_fast_clock_fn)(uintptr_t)s->getres.fn;
		__atomic_store_n(&vdsokit__fast.time, (vdsokit_fast_time_fn)(uintptr_t)s->time.fn,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&vdsokit__fast.getres_clocks,
				 entry_clocks(&s->getres) | VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&vdsokit__fast.gettime_clocks, entry_clocks(&s->gettime) | VDSOKIT__FAST_READY,
			 __ATOMIC_RELEASE);
	return s;
}

const struct vdsokit_state *vdsokit_state_slow(void)
{
	int slot = claim_slot(this_thread());
	if (slot < 0) {
		const struct vdsokit_state *s = __atomic_load_n(&vdsokit__published, __ATOMIC_ACQUIRE);
		return s ? s : &vdsokit_empty;
	}
	vdsokit_resolve(&init_slots[slot]);
	return publish(&init_slots[slot]);
}

void vdsokit__entry_overflowed(const struct vdsokit_entry *e)
{
	/*
	 * Only entries of a published state get here (the empty state's have
	 * no fn), and the slots are writable: the const is the callers' view.
	 */
	struct vdsokit_entry *mine = (struct vdsokit_entry *)(uintptr_t)e;
	__atomic_store_n(&mine->overflowed, 1, __ATOMIC_RELAXED);
	/* Still ready, but no clock is read through that entry any more. */
	if (mine == &vdsokit_state()->gettime)
		__atomic_store_n(&vdsokit__fast.gettime_clocks, VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
	if (mine == &vdsokit_state()->getres)
		__atomic_store_n(&vdsokit__fast.getres_clocks, VDSOKIT__FAST_READY, __ATOMIC_RELEASE);
}

/* The verdict vdsokit_init() returns for a state. */
static int init_verdict(const struct vdsokit_state *s)
{
	if (s->image)
		return 0;
	return s->image_reason == VDSOKIT_REASON_NO_VDSO ? -ENOENT : -ENOEXEC;
}

VDSO_EXPORT int vdsokit_init(void)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (s != &vdsokit_empty)
		return init_verdict(s);
	/*
	 * Every slot is held by an initialisation still running.  Those of
	 * other threads finish: wait for the first.  One this thread holds
	 * belongs to a frame this signal handler interrupted, which cannot go
	 * on until the handler returns: then the same work on the stack gives
	 * the verdict, and the calls take the syscall until a slot publishes.
	 */
	const void *me = this_thread();
	while ((s = __atomic_load_n(&vdsokit__published, __ATOMIC_ACQUIRE)) == NULL) {
		if (this_thread_holds_a_slot(me)) {
			struct vdsokit_state mine;
			vdsokit_resolve(&mine);
			return init_verdict(&mine);
		}
		sys0(__NR_sched_yield);
	}
	return init_verdict(s);
}

VDSO_EXPORT int vdsokit_use_image(const void *base, size_t size)
{
	if (__atomic_load_n(&init_slot_owner[0], __ATOMIC_ACQUIRE) != NULL)
		return -EBUSY; /* the first caller always claims slot 0 */
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
