/* SPDX-License-Identifier: MIT */
/*
 * The exported entries of a synthetic image: which fake implementation each
 * of the architecture's names (names.h) points at, minus what the variant
 * removes.  No include guard: the includer defines
 *   EXPORT(impl, name)       a global function in IMAGE_NODE
 *   EXPORT_WEAK(impl, name)  a weak alias in IMAGE_NODE (x86_64, sparc)
 *   EXPORT_OLD(impl, name)   a global function in IMAGE_OLD_NODE (i386)
 *   EXPORT_DATA(name)        a data object in IMAGE_NODE
 * and includes this once per list it builds (C aliases, assembly labels,
 * the version script).
 *
 * Variant switches:
 *   OMIT_GETTIME       the native clock_gettime is absent ("absent", and
 *                      arm's "only64": the pre-5.8 arm shape)
 *   GETTIME_UNDEFINED  the native clock_gettime is an undefined reference
 *   GETTIME_AS_DATA    the native clock_gettime name is a data object
 *   ONLY_TIME32        no clock_gettime64 / clock_getres_time64 (i386
 *                      "time32only", kernels before 5.1)
 *   OMIT_GETRES32      the native clock_getres is absent (with
 *                      OMIT_GETTIME: arm's "time64only", a kernel without
 *                      COMPAT_32BIT_TIME that has only the 64-bit entries)
 *   OMIT_TIME32        on the 32-bit-time architectures (FAKE_TIME32), the
 *                      four entries that take or return 32-bit time are
 *                      absent: clock_gettime, clock_getres, gettimeofday,
 *                      time, as Linux 7.3 leaves them out without
 *                      COMPAT_32BIT_TIME ("v73y2038")
 */
#if defined(OMIT_TIME32) && defined(FAKE_TIME32)
# undef NAME_GETTIME
# undef NAME_GETRES
# undef NAME_GETTIMEOFDAY
# undef NAME_TIME
#endif
#if !defined(OMIT_GETTIME) && !defined(GETTIME_UNDEFINED) && !defined(GETTIME_AS_DATA)
# ifdef NAME_GETTIME
EXPORT(clock_gettime_native, NAME_GETTIME)
# endif
# ifdef NAME_GETTIME_PLAIN
EXPORT_WEAK(clock_gettime_native, NAME_GETTIME_PLAIN)
# endif
#endif
#if defined(GETTIME_AS_DATA) && defined(NAME_GETTIME)
EXPORT_DATA(NAME_GETTIME)
#endif
#if defined(NAME_GETTIME64) && !defined(ONLY_TIME32)
EXPORT(clock_gettime64, NAME_GETTIME64)
#endif
#if defined(NAME_GETRES) && !defined(OMIT_GETRES32)
EXPORT(clock_getres_native, NAME_GETRES)
#endif
#ifdef NAME_GETRES_PLAIN
EXPORT_WEAK(clock_getres_native, NAME_GETRES_PLAIN)
#endif
#if defined(NAME_GETRES64) && !defined(ONLY_TIME32)
EXPORT(clock_getres64, NAME_GETRES64)
#endif
#ifdef NAME_GETTIMEOFDAY
EXPORT(gettimeofday, NAME_GETTIMEOFDAY)
#endif
#ifdef NAME_GETTIMEOFDAY_PLAIN
EXPORT_WEAK(gettimeofday, NAME_GETTIMEOFDAY_PLAIN)
#endif
#ifdef NAME_TIME
EXPORT(time, NAME_TIME)
#endif
#ifdef NAME_TIME_PLAIN
EXPORT_WEAK(time, NAME_TIME_PLAIN)
#endif
#ifdef NAME_GETCPU
EXPORT(getcpu, NAME_GETCPU)
#endif
#ifdef NAME_GETCPU_PLAIN
EXPORT_WEAK(getcpu, NAME_GETCPU_PLAIN)
#endif
#ifdef NAME_GETRANDOM
EXPORT(getrandom, NAME_GETRANDOM)
#endif
#ifdef NAME_GETRANDOM_PLAIN
EXPORT_WEAK(getrandom, NAME_GETRANDOM_PLAIN)
#endif
#ifdef NAME_GET_THREAD_AREA
EXPORT(get_thread_area, NAME_GET_THREAD_AREA)
#endif
#ifdef NAME_GETTIME_STICK
EXPORT(spin_forever, NAME_GETTIME_STICK)
#endif
#ifdef NAME_GETTIMEOFDAY_STICK
EXPORT(spin_forever, NAME_GETTIMEOFDAY_STICK)
#endif
#ifdef NAME_FUTEX_ROBUST64
EXPORT(not_called, NAME_FUTEX_ROBUST64)
#endif
#ifdef NAME_FUTEX_ROBUST32
EXPORT(not_called, NAME_FUTEX_ROBUST32)
#endif
#ifdef NAME_OTHER1
EXPORT(not_called, NAME_OTHER1)
#endif
#ifdef NAME_OTHER2
EXPORT(not_called, NAME_OTHER2)
#endif
#ifdef NAME_OTHER3
EXPORT(not_called, NAME_OTHER3)
#endif
#ifdef NAME_OLD1
EXPORT_OLD(not_called, NAME_OLD1)
#endif
#ifdef NAME_OLD2
EXPORT_OLD(not_called, NAME_OLD2)
#endif
#ifdef NAME_OLD3
EXPORT_OLD(not_called, NAME_OLD3)
#endif
