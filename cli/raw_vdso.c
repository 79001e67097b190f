/* SPDX-License-Identifier: MIT */
/*
 * The bare vDSO entry points behind bench's "raw vDSO" column: the address
 * the library resolved (vdsokit_path_of), called straight from the
 * measuring loop with the kernel's own signature, so that the column is
 * the reference the library is judged against, with none of the library's
 * code (state check, out-of-line call) in it.
 *
 * Not on powerpc: its vDSO reports errors in CR0.SO rather than in the
 * return value, and on big-endian ppc64 (ELFv1) a code address is not a
 * callable function pointer (it needs a descriptor); the library's
 * assembly call sequence is the only correct way in, so the column goes
 * through vdsokit_*_via(VDSOKIT_VIA_VDSO) there and says so.  getrandom
 * (its per-thread state comes from the library) and the thread pointer
 * take that way everywhere.
 */
#include <string.h>

#include "cli.h"

#if defined(__powerpc__) || defined(__powerpc64__)
#define BARE_CALLS 0
#else
#define BARE_CALLS 1
#endif

bool raw_vdso_is_bare(enum vdsokit_func fn)
{
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
	case VDSOKIT_FN_CLOCK_GETRES:
	case VDSOKIT_FN_GETTIMEOFDAY:
	case VDSOKIT_FN_TIME:
	case VDSOKIT_FN_GETCPU:
		return BARE_CALLS;
	default:
		return false;
	}
}

/*
 * Whether symbol is fn's own entry: when the vDSO has no time(), the
 * library serves time() from clock_gettime, and path_of names that symbol.
 */
static bool symbol_is_for(enum vdsokit_func fn, const char *symbol)
{
	if (!symbol)
		return false;
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME: return strstr(symbol, "clock_gettime") != NULL;
	case VDSOKIT_FN_CLOCK_GETRES:  return strstr(symbol, "clock_getres") != NULL;
	case VDSOKIT_FN_GETTIMEOFDAY:  return strstr(symbol, "gettimeofday") != NULL;
	case VDSOKIT_FN_GETCPU:        return strstr(symbol, "getcpu") != NULL;
	case VDSOKIT_FN_TIME:
		return strstr(symbol, "time") && !strstr(symbol, "clock_") &&
		       !strstr(symbol, "gettimeofday");
	default:
		return false;
	}
}

/*
 * getcpu's entry even where the library answers from elsewhere (x86 with
 * rseq: the libc's rseq area) and path_of names no symbol: by name, as the
 * kernels spell it.
 */
static const void *getcpu_entry(void)
{
	static const char *const names[] = { "__vdso_getcpu", "__kernel_getcpu" };
	const struct vdsokit_image *img = vdsokit_process_image();
	struct vdsokit_symbol sym;
	for (size_t i = 0; img && i < sizeof(names) / sizeof(names[0]); i++)
		if (vdsokit_image_lookup(img, names[i], NULL, &sym) == 0 && sym.address)
			return sym.address;
	return NULL;
}

const void *raw_vdso_address(enum vdsokit_func fn, long clock)
{
	struct vdsokit_path path;
	if (!raw_vdso_is_bare(fn))
		return NULL;
	if (vdsokit_path_of(fn, (clockid_t)clock, &path) == 0 && path.address &&
	    symbol_is_for(fn, path.symbol))
		return path.address;
	if (fn == VDSOKIT_FN_GETCPU)
		return getcpu_entry();
	if (fn != VDSOKIT_FN_CLOCK_GETTIME && fn != VDSOKIT_FN_CLOCK_GETRES)
		return NULL;
	/*
	 * A clock the library sends to the syscall (CPU-time clocks, ids >= 12)
	 * still has the vDSO's entry, which then makes the syscall itself: the
	 * same entry as any clock it reads, found through one of those.
	 */
	for (long other = 0; other < 12; other++)
		if (vdsokit_path_of(fn, (clockid_t)other, &path) == 0 && path.address &&
		    symbol_is_for(fn, path.symbol))
			return path.address;
	return NULL;
}
