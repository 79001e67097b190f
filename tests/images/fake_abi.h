/* SPDX-License-Identifier: MIT */
/*
 * What the fake vDSO functions (fake.c) and tests/callpath.c agree on,
 * beyond the values fake.c's header lists.
 *
 * Call counters.  The images hold no writable data (they are mapped flat,
 * read and execute, with no relocation), so the fakes count their calls in
 * a page at a fixed address, which callpath maps before it calls anything.
 * The counting is gated so that other programs calling the images
 * (`vdsokit verify --image`) never touch that page:
 *   - a 64-bit-time clock_gettime entry counts a call only when the caller's
 *     timespec held FAKE_COUNT_MAGIC in tv_sec on entry (the library passes
 *     the caller's timespec through to these entries);
 *   - the 32-bit-time native clock_gettime counts every call: only callpath
 *     calls it (the library hands it its own 32-bit timespec).
 * Native address, not a pointer into the image: every architecture can
 * build it as an immediate, with no relocation.
 */
#ifndef IMAGES_FAKE_ABI_H
#define IMAGES_FAKE_ABI_H

#define FAKE_COUNTERS_ADDR 0x3a5a0000ul
#define FAKE_COUNT_MAGIC 0x7c0117
/* Indexes of the uint32_t counters at FAKE_COUNTERS_ADDR. */
#define FAKE_COUNT_GETTIME_NATIVE 0
#define FAKE_COUNT_GETTIME64 1

/*
 * time(): past 2^32 where the native entries take 64-bit time, so that a
 * caller truncating the return to 32 bits (x32's 32-bit long) sees another
 * value; the 32-bit-time architectures and powerpc (fake_ppc.S) return 0x55555.
 */
#define FAKE_TIME_VALUE_WIDE 0x100055555ll
#define FAKE_TIME_VALUE_32 0x55555

#endif
