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

const struct arch_symbol vdso_arch_symbols[SYM_COUNT] = ARCH_SYMBOLS;

struct vdso_state vdso_global;
int vdso_ready;
/* What programs inlining vdso_clock_gettime read (include/vdsokit.h). */
VDSO_EXPORT struct vdso__fastpath vdso__fast;

/* What the library saw while nobody has initialised it yet: no vDSO. */
static const struct vdso_state vdso_empty = {
	.image_reason = VDSO_REASON_NO_VDSO,
	.gettime = { .reason = VDSO_REASON_NO_VDSO },
	.getres = { .reason = VDSO_REASON_NO_VDSO },
	.gettimeofday = { .reason = VDSO_REASON_NO_VDSO },
	.time = { .reason = VDSO_REASON_NO_VDSO },
	.getcpu = { .reason = VDSO_REASON_NO_VDSO },
	.getrandom = { .reason = VDSO_REASON_NO_VDSO },
	.thread_area = { .reason = VDSO_REASON_NO_VDSO },
};

static int arch_machine_matches(unsigned machine)
{
#ifdef ARCH_ELF_MACHINE_ALT
	if (machine == ARCH_ELF_MACHINE_ALT)
		return 1;
#endif
	return machine == ARCH_ELF_MACHINE;
}

/* vdso_use_image(): an image chosen by the program instead of the auxv's. */
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

static int locate(const void **base, size_t *size)
{
	if (override_set) {
		*base = override_base;
		*size = override_size;
		return *base ? 0 : -ENOENT;
	}
	*base = (const void *)getauxval(AT_SYSINFO_EHDR);
	if (!*base)
		return -ENOENT;
	size_t page = getauxval(AT_PAGESZ);
	if (!page || (page & (page - 1)))
		page = 4096;
	/* The kernel maps at least one page there: read the headers within it. */
	int err = image_extent(*base, page, size);
	if (err)
		return err;
	if (*size > MAX_IMAGE_SIZE)
		return VDSO_IMAGE_TOO_LARGE;
	return 0;
}

static void resolve_symbols(struct vdso_state *s)
{
	for (int i = 0; i < SYM_COUNT; i++) {
		const struct arch_symbol *want = &vdso_arch_symbols[i];
		struct vdso_symbol sym;
		if (!want->name)
			continue;
		if (vdso_image_lookup(s->image, want->name, want->version, &sym) == 0 &&
		    image_symbol_is_callable(s->image, &sym)) {
			s->sym_addr[i] = sym.address;
			s->sym_version[i] = sym.version;
		}
	}
}

/* The reason a missing entry is missing: never on this arch, or not in this kernel. */
static enum vdso_reason absent(enum vdso_sym sym)
{
	return vdso_arch_symbols[sym].name ? VDSO_REASON_SYMBOL_ABSENT : VDSO_REASON_NOT_ON_ARCH;
}

static struct vdso_entry entry_native(const struct vdso_state *s, enum vdso_sym sym)
{
	struct vdso_entry e = { .sym = sym, .time64 = ARCH_NATIVE_TIME64 };
	e.fn = s->sym_addr[sym];
	e.reason = e.fn ? VDSO_REASON_OK : absent(sym);
	return e;
}

/*
 * A time function with a 64-bit-time entry (sym64) and a native one: on
 * 64-bit architectures the native entry is already 64-bit.  On 32-bit
 * ones, the 64-bit entry first, then the 32-bit one, which the call
 * checks for overflow.  On arm the 64-bit entry counts only beside the
 * 32-bit one (pre-5.8 kernels exported it broken on their own).
 */
static struct vdso_entry entry_time(const struct vdso_state *s, enum vdso_sym native,
				    enum vdso_sym sym64)
{
	if (ARCH_NATIVE_TIME64)
		return entry_native(s, native);

	const void *fn32 = s->sym_addr[native], *fn64 = s->sym_addr[sym64];
	struct vdso_entry e = { .sym = sym64, .time64 = 1, .fn = fn64, .reason = VDSO_REASON_OK };
	if (fn64 && ARCH_GETTIME64_NEEDS_32 && !fn32) {
		e.fn = NULL;
		e.reason = VDSO_REASON_UNTRUSTED;
		return e;
	}
	if (fn64)
		return e;
	if (fn32)
		return (struct vdso_entry){ .sym = native, .time64 = 0, .fn = fn32,
					    .reason = VDSO_REASON_TIME32 };
	e.fn = NULL;
	e.reason = vdso_arch_symbols[sym64].name ? absent(sym64) : absent(native);
	return e;
}

static void choose_entries(struct vdso_state *s)
{
	s->gettime = entry_time(s, SYM_CLOCK_GETTIME, SYM_CLOCK_GETTIME64);
	s->getres = entry_time(s, SYM_CLOCK_GETRES, SYM_CLOCK_GETRES64);
	/* gettimeofday and time have no 64-bit entries on 32-bit kernels. */
	s->gettimeofday = entry_native(s, SYM_GETTIMEOFDAY);
	s->time = entry_native(s, SYM_TIME);
	s->getcpu = entry_native(s, SYM_GETCPU);
	s->getrandom = entry_native(s, SYM_GETRANDOM);
	s->thread_area = entry_native(s, SYM_GET_THREAD_AREA);
}

static void mark_all(struct vdso_state *s, enum vdso_reason why)
{
	struct vdso_entry *all[] = { &s->gettime, &s->getres, &s->gettimeofday, &s->time,
				     &s->getcpu, &s->getrandom, &s->thread_area };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		all[i]->reason = why;
}

void vdso_resolve(struct vdso_state *s)
{
	const void *base;
	size_t size;

	memset(s, 0, sizeof(*s));
	int err = locate(&base, &size);
	if (err == -ENOENT) {
		s->image_reason = VDSO_REASON_NO_VDSO;
		mark_all(s, VDSO_REASON_NO_VDSO);
		return;
	}
	if (!err)
		err = vdso_image_parse(&s->parsed, base, size);
	if (!err && (s->parsed.elf_class != ARCH_ELF_CLASS || s->parsed.big_endian != ARCH_BIG_ENDIAN ||
		     !arch_machine_matches(s->parsed.machine)))
		err = VDSO_IMAGE_WRONG_ARCH;
	if (err) {
		s->image_reason = VDSO_REASON_BAD_IMAGE;
		s->image_error = err;
		mark_all(s, VDSO_REASON_BAD_IMAGE);
		return;
	}
	s->image = &s->parsed;
	s->image_reason = VDSO_REASON_OK;
	resolve_symbols(s);
	choose_entries(s);
}

const struct vdso_state *vdso_state_slow(void)
{
	int expected = 0;
	if (__atomic_compare_exchange_n(&vdso_ready, &expected, 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE)) {
		/*
		 * Nobody reads vdso_global before one of the two flags below says
		 * it is ready: vdso_ready, and the clock_gettime fast path's clock
		 * mask (src/time.c, include/vdsokit.h).  Both are stored last,
		 * with release order.
		 */
		vdso_resolve(&vdso_global);
		if (LIB_FASTPATH_INLINE)
			vdso__fast.gettime = (int (*)(clockid_t, struct vdso_timespec *))
						     (uintptr_t)vdso_global.gettime.fn;
		__atomic_store_n(&vdso__fast.gettime_clocks,
				 entry_clocks(&vdso_global.gettime) | VDSO__FAST_READY, __ATOMIC_RELEASE);
		__atomic_store_n(&vdso_ready, 2, __ATOMIC_RELEASE);
		return &vdso_global;
	}
	if (expected == 2)
		return &vdso_global;
	/* Another thread (or the code this signal interrupted) is initialising. */
	return &vdso_empty;
}

VDSO_EXPORT int vdso_init(void)
{
	const struct vdso_state *s;
	/* Spin only here, never on a call path: callers asked to wait. */
	while ((s = vdso_state()) == &vdso_empty)
		sys0(__NR_sched_yield);
	if (s->image)
		return 0;
	return s->image_reason == VDSO_REASON_NO_VDSO ? -ENOENT : -ENOEXEC;
}

VDSO_EXPORT int vdso_use_image(const void *base, size_t size)
{
	if (__atomic_load_n(&vdso_ready, __ATOMIC_ACQUIRE) != 0)
		return -EBUSY;
	override_base = base;
	override_size = size;
	override_set = 1;
	return 0;
}

VDSO_EXPORT const struct vdso_image *vdso_process_image(void)
{
	return vdso_state()->image;
}

VDSO_EXPORT const char *vdso_arch_name(void)
{
	return ARCH_NAME;
}
