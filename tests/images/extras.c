/* SPDX-License-Identifier: MIT */
/*
 * The symbols a vDSO lookup must refuse, present in every image so that the
 * host test can check the refusals against readelf:
 *   vdso_fake_data       an exported data object (STT_OBJECT);
 *   vdso_fake_localized  a default-visibility function the version script
 *                        makes local (it must not be found by name);
 *   vdso_fake_external   (WITH_UNDEFINED) an undefined reference, from the
 *                        exported vdso_fake_caller;
 * and for the "undef" and "data" variants the architecture's clock_gettime
 * name as an undefined reference or as a data object.
 * Only const data: the image must stay free of writable, relocated data.
 */
#include "names.h"

#define STR2(x) #x
#define STR(x) STR2(x)

__attribute__((visibility("default"))) const int vdso_fake_data = 42;

__attribute__((visibility("default"), used, noinline)) int vdso_fake_localized(int x)
{
	return x + 1;
}

#ifdef WITH_UNDEFINED
extern int vdso_fake_external(int);

__attribute__((visibility("default"))) int vdso_fake_caller(int x)
{
	return vdso_fake_external(x) + 1;
}
#endif

#if defined(GETTIME_UNDEFINED) && defined(NAME_GETTIME)
extern int NAME_GETTIME(int, void *);

__attribute__((visibility("default"))) int vdso_fake_gettime_caller(int c, void *ts)
{
	return NAME_GETTIME(c, ts);
}
#endif

#if defined(GETTIME_AS_DATA) && defined(NAME_GETTIME)
__attribute__((visibility("default"))) const long NAME_GETTIME[2] = { 0x10000, 1000 };
#endif
