/* SPDX-License-Identifier: MIT */
/*
 * libvdsokit: find, parse and call the Linux vDSO, with the syscall as the
 * fallback wherever the vDSO, a symbol or a fast path is missing.
 *
 * Conventions of every call below:
 *   - 0 (or the requested value) on success, a negative errno on failure;
 *   - errno is left as it was;
 *   - nothing is allocated (getrandom's per-thread states excepted, see
 *     vdsokit_getrandom), no lock is taken and nothing waits;
 *   - every call is async-signal-safe, the first one included.
 * The header compiles as C89 and every later C, and as C++ (98 and later),
 * on every ABI.
 *
 * Bad pointers: the library passes caller pointers to the vDSO unchanged, as
 * the libc does.  The vDSO writes through them from user space, so a NULL,
 * unmapped or read-only pointer raises SIGSEGV where the syscall would have
 * returned -EFAULT.  Callers that need -EFAULT must use VDSOKIT_ROUTE_SYSCALL.
 */
#ifndef VDSOKIT_H
#define VDSOKIT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VDSOKIT_VERSION_MAJOR 0
#define VDSOKIT_VERSION_MINOR 5
#define VDSOKIT_VERSION_PATCH 0
#define VDSOKIT_VERSION_STRING "0.5.0"

/* The kernel's struct __kernel_timespec: 64-bit on every architecture. */
struct vdsokit_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct vdsokit_timeval {
	int64_t tv_sec;
	int64_t tv_usec;
};

struct timezone;

/* ---------------------------------------------------------------------- */
/* Calls                                                                  */
/* ---------------------------------------------------------------------- */

int vdsokit_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts);
int vdsokit_clock_getres(clockid_t clock, struct vdsokit_timespec *res);
int vdsokit_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz);
/* Stores the seconds since the epoch in *t (when t is not NULL). */
int vdsokit_time(int64_t *t);
/*
 * cpu from the rseq area the libc registered for this thread (glibc 2.35+),
 * node too when the kernel fills it there (Linux 6.3+); else the vDSO's
 * getcpu, else the syscall.
 */
int vdsokit_getcpu(unsigned *cpu, unsigned *node);
/*
 * getrandom(2): GRND_NONBLOCK, GRND_RANDOM and GRND_INSECURE as the syscall.
 * Returns the number of bytes written or a negative errno.  Through the
 * vDSO each thread uses one opaque state of its own, taken at its first
 * call and given back when it exits; a call that finds its thread's state
 * busy (a signal handler interrupted a call) takes the syscall, and so
 * does GRND_RANDOM.  libvdsokit(3) says when else the syscall serves it.
 */
ssize_t vdsokit_getrandom(void *buf, size_t len, unsigned flags);
/*
 * The ABI thread pointer, the value __builtin_thread_pointer() gives where
 * the compiler supports it (the register the libc's TLS is based on).  On
 * m68k, __vdso_get_thread_area when the vDSO has it, else the
 * get_thread_area syscall.  NULL on an architecture with neither.
 */
void *vdsokit_thread_pointer(void);

/*
 * Locates and resolves everything now instead of at the first call.
 * Returns 0 when a usable vDSO was found, a negative errno (-ENOENT: no
 * vDSO mapped; -ENOEXEC: the image was rejected) when every call will take
 * the syscall.
 * Initialisation: a call that finds the library unresolved (the first one,
 * or any made while another is resolving) finds the vDSO and resolves it
 * itself, then publishes what it found.  Every resolution finds the same,
 * so nobody waits for anybody, and a signal, siglongjmp or fork at any
 * instant leaves nothing to undo.  It makes no system call.
 */
int vdsokit_init(void);

/*
 * Use the image at [base, base + size) instead of AT_SYSINFO_EHDR; base NULL
 * means "no vDSO".  The bytes must stay mapped (and executable, for the
 * functions to be called) for the life of the process.  Must come before
 * the library resolves the process's vDSO (vdsokit_init() or the first
 * call that needs it), and once: -EBUSY after.
 */
int vdsokit_use_image(const void *base, size_t size);

/* ---------------------------------------------------------------------- */
/* Which route a call takes, and why                                       */
/* ---------------------------------------------------------------------- */

enum vdsokit_func {
	VDSOKIT_FN_CLOCK_GETTIME,
	VDSOKIT_FN_CLOCK_GETRES,
	VDSOKIT_FN_GETTIMEOFDAY,
	VDSOKIT_FN_TIME,
	VDSOKIT_FN_GETCPU,
	VDSOKIT_FN_GETRANDOM,
	VDSOKIT_FN_THREAD_POINTER,
	VDSOKIT_FN_COUNT
};

/*
 * The route of a call: which way it goes.  vdsokit_route_of() answers with
 * any but VDSOKIT_ROUTE_AUTO; the vdsokit_*_via() calls take AUTO, VDSO or
 * SYSCALL (-EINVAL for any other).  The first three keep the values of
 * 0.4's enum vdsokit_via.
 */
enum vdsokit_route {
	VDSOKIT_ROUTE_AUTO,      /* _via(): what the plain call does            */
	VDSOKIT_ROUTE_VDSO,      /* a vDSO function serves it in user space;
				    _via(): the vDSO symbol, any argument, no
				    retry (-ENOSYS when the symbol is absent) */
	VDSOKIT_ROUTE_SYSCALL,   /* the library makes the syscall               */
	VDSOKIT_ROUTE_VDSO_KERNEL, /* a vDSO function, which enters the kernel   */
	VDSOKIT_ROUTE_REGISTER,  /* read from a CPU register (thread pointer)   */
	VDSOKIT_ROUTE_NONE,      /* not available at all on this architecture   */
	VDSOKIT_ROUTE_RSEQ       /* read from the thread's rseq area (getcpu)   */
};

enum vdsokit_reason {
	VDSOKIT_REASON_OK,             /* the fast path                            */
	VDSOKIT_REASON_NO_VDSO,        /* no AT_SYSINFO_EHDR (vdso=0, qemu-user…)  */
	VDSOKIT_REASON_BAD_IMAGE,      /* the image failed validation              */
	VDSOKIT_REASON_NOT_ON_ARCH,    /* no vDSO entry for it on any kernel here  */
	VDSOKIT_REASON_SYMBOL_ABSENT,  /* this kernel's vDSO lacks the symbol      */
	VDSOKIT_REASON_CLOCK_IN_KERNEL,/* the vDSO has no user-space read for it   */
	VDSOKIT_REASON_UNTRUSTED,      /* present but known broken (arm gettime64) */
	VDSOKIT_REASON_TIME32,         /* only a 32-bit-time entry: used until 2038 */
	VDSOKIT_REASON_ABI_REGISTER,   /* the ABI keeps it in a register           */
	VDSOKIT_REASON_NO_STATE,       /* getrandom: no opaque state could be had  */
	VDSOKIT_REASON_TIME32_OVERFLOWED,/* the 32-bit-time entry overflowed (past
					  2038): dropped, the syscall serves it */
	VDSOKIT_REASON_ENTRY_IS_SYSCALL,/* the vDSO entry only makes the syscall
					  (riscv getcpu): the library makes it */
	VDSOKIT_REASON_RSEQ_AREA,      /* the libc's rseq area, which the kernel
					  keeps current: one load (getcpu) */
	VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY, /* the rseq area has cpu_id but no
					  node_id (Linux < 6.3: the kernel's
					  feature size ends before it): a call that asks for the
					  node takes the vDSO symbol or the
					  syscall the route names */
	VDSOKIT_REASON_NO_EXIT_HOOK,   /* getrandom: no async-signal-safe thread-exit
					  hook for its states (glibc, the library
					  loaded after 32 pthread keys): the syscall */
	VDSOKIT_REASON_NO_STATE_MEMORY /* getrandom: the states' memory could not be
					  set up (a seccomp filter refused mmap):
					  the syscall */
};

/*
 * Caller-allocated, filled by vdsokit_route_of(): its size and every field
 * are ABI.  A later release adds fields only out of reserved[] (0 until
 * then), and says so in struct_version ("version" is the vDSO symbol's).
 */
#define VDSOKIT_ROUTE_INFO_VERSION 1
struct vdsokit_route_info {
	unsigned struct_version;  /* VDSOKIT_ROUTE_INFO_VERSION: the fields filled */
	unsigned reserved32;      /* 0                                          */
	enum vdsokit_route route;
	enum vdsokit_reason reason;
	const char *symbol;       /* vDSO symbol used, or NULL                  */
	const char *version;      /* its version node, or NULL if unversioned   */
	const void *address;      /* resolved address of symbol, or NULL        */
	const char *syscall;      /* syscall used on fallback, or NULL           */
	long syscall_nr;          /* its number, -1 if none                      */
	uintptr_t reserved[4];    /* 0                                          */
};

/* clock is ignored except for VDSOKIT_FN_CLOCK_GETTIME and VDSOKIT_FN_CLOCK_GETRES. */
int vdsokit_route_of(enum vdsokit_func fn, clockid_t clock, struct vdsokit_route_info *info);
/*
 * The vDSO's own entry for fn, to call as a plain C function with the
 * kernel's types and signature: the bare reference a benchmark measures
 * the library against.  It is the entry the library resolved for fn (the
 * library may still send some clocks to the syscall: see vdsokit_route_of).
 * *time64 (may be NULL) tells whether its time values are 64-bit: the
 * timespec's and the timeval's seconds, time()'s return.  Returns 0;
 * -ENOENT when this process's vDSO has no usable entry for fn (none, or a
 * 32-bit-time entry dropped after it overflowed); -EINVAL for an unknown
 * fn or a NULL entry; -EOPNOTSUPP
 * where none can be called bare: on powerpc (errors in CR0.SO, ELFv1
 * function descriptors), and for getrandom (its state comes from the
 * library) and the thread pointer; vdsokit_*_via(VDSOKIT_ROUTE_VDSO) calls
 * those.
 */
int vdsokit_bare_entry(enum vdsokit_func fn, const void **entry, int *time64);
const char *vdsokit_func_name(enum vdsokit_func fn);
const char *vdsokit_route_name(enum vdsokit_route route);
const char *vdsokit_reason_text(enum vdsokit_reason reason);
/* The process-wide image, or NULL when every call takes the syscall. */
const struct vdsokit_image *vdsokit_process_image(void);
/* Architecture this library was built for ("x86_64", "aarch64", …). */
const char *vdsokit_arch_name(void);

/* ---------------------------------------------------------------------- */
/* One route only, for tools that compare routes (bench, verify, abi)      */
/* ---------------------------------------------------------------------- */

int vdsokit_clock_gettime_via(enum vdsokit_route route, clockid_t clock, struct vdsokit_timespec *ts);
int vdsokit_clock_getres_via(enum vdsokit_route route, clockid_t clock, struct vdsokit_timespec *res);
int vdsokit_gettimeofday_via(enum vdsokit_route route, struct vdsokit_timeval *tv, struct timezone *tz);
int vdsokit_time_via(enum vdsokit_route route, int64_t *t);
int vdsokit_getcpu_via(enum vdsokit_route route, unsigned *cpu, unsigned *node);
ssize_t vdsokit_getrandom_via(enum vdsokit_route route, void *buf, size_t len, unsigned flags);
/* VDSOKIT_ROUTE_SYSCALL: the kernel's record (arch_prctl, get_thread_area,
 * arm's get_tls); NULL where no syscall returns it. */
void *vdsokit_thread_pointer_via(enum vdsokit_route route);

/* ---------------------------------------------------------------------- */
/* Images: any vDSO (or small shared object) of any architecture           */
/* ---------------------------------------------------------------------- */

enum vdsokit_image_error {
	VDSOKIT_IMAGE_OK = 0,
	VDSOKIT_IMAGE_TRUNCATED = 1,     /* smaller than its headers say         */
	VDSOKIT_IMAGE_NOT_ELF,           /* bad magic                            */
	VDSOKIT_IMAGE_BAD_CLASS,         /* EI_CLASS not 32/64                   */
	VDSOKIT_IMAGE_BAD_BYTE_ORDER,    /* EI_DATA not LSB/MSB                  */
	VDSOKIT_IMAGE_BAD_VERSION,       /* EI_VERSION / e_version not current   */
	VDSOKIT_IMAGE_NOT_SHARED,        /* e_type is not ET_DYN                 */
	VDSOKIT_IMAGE_BAD_PHDR,          /* program headers out of bounds / size */
	VDSOKIT_IMAGE_NO_LOAD,           /* no PT_LOAD                           */
	VDSOKIT_IMAGE_NO_DYNAMIC,        /* no PT_DYNAMIC                        */
	VDSOKIT_IMAGE_BAD_DYNAMIC,       /* dynamic section out of bounds        */
	VDSOKIT_IMAGE_BAD_STRTAB,        /* DT_STRTAB/DT_STRSZ missing or outside */
	VDSOKIT_IMAGE_BAD_SYMTAB,        /* DT_SYMTAB/DT_SYMENT missing or wrong  */
	VDSOKIT_IMAGE_NO_HASH,           /* neither DT_HASH nor DT_GNU_HASH      */
	VDSOKIT_IMAGE_BAD_HASH,          /* DT_HASH table out of bounds          */
	VDSOKIT_IMAGE_BAD_GNU_HASH,      /* DT_GNU_HASH table out of bounds      */
	VDSOKIT_IMAGE_BAD_VERSYM,        /* DT_VERSYM out of bounds              */
	VDSOKIT_IMAGE_BAD_VERDEF,        /* DT_VERDEF chain out of bounds/looping */
	VDSOKIT_IMAGE_WRONG_ARCH,        /* class/byte order/machine not the host's */
	VDSOKIT_IMAGE_TOO_LARGE,         /* (process image) bigger than a vDSO   */
	VDSOKIT_IMAGE_ERROR_COUNT
};

#define VDSOKIT_IMAGE_HAS_SYSV_HASH 0x1u
#define VDSOKIT_IMAGE_HAS_GNU_HASH  0x2u
#define VDSOKIT_IMAGE_HAS_VERSYM    0x4u
#define VDSOKIT_IMAGE_HAS_VERDEF    0x8u

/*
 * A parsed image.  Caller-allocated (on the stack is fine), so its size and
 * every field below are ABI: a later release adds fields only out of
 * reserved[], and says so in version.  The parser keeps pointers into the
 * bytes it was given, so they must outlive it.  Offsets are from data.
 */
#define VDSOKIT_IMAGE_VERSION 1
struct vdsokit_image {
	unsigned version;        /* VDSOKIT_IMAGE_VERSION: the fields filled  */
	unsigned elf_class;      /* 32 or 64                                  */
	const unsigned char *data;
	size_t size;             /* bytes that may be read: the whole image   */
	unsigned big_endian;     /* 1 for ELFDATA2MSB                         */
	unsigned machine;        /* e_machine                                 */
	unsigned flags;          /* VDSOKIT_IMAGE_HAS_*                       */
	unsigned hash_entry_size;/* 4, or 8 (s390x, alpha)                    */
	uint32_t symbol_count;   /* entries of the dynamic symbol table       */
	uint32_t verdef_count;   /* version definitions                       */
	const unsigned char *build_id; /* NT_GNU_BUILD_ID descriptor or NULL  */
	size_t build_id_size;
	uint64_t e_flags;
	uint64_t load_vaddr;     /* p_vaddr - p_offset of the first PT_LOAD   */
	size_t strtab, strsz;    /* DT_STRTAB's offset, DT_STRSZ              */
	size_t symtab, syment;   /* DT_SYMTAB's offset, DT_SYMENT             */
	size_t hash;             /* DT_HASH's offset, 0 if none               */
	uint32_t hash_nbucket, hash_nchain;
	size_t gnu_hash;         /* DT_GNU_HASH's offset, 0 if none           */
	uint32_t gnu_nbucket, gnu_symoffset, gnu_bloom_size, gnu_bloom_shift;
	size_t versym, verdef;   /* DT_VERSYM's and DT_VERDEF's offsets, 0 if none */
	size_t exec_lo, exec_hi; /* file offsets of the executable PT_LOAD(s) */
	uint64_t reserved[8];    /* 0                                         */
};
/*
 * A symbol and a version definition, filled by the calls below into the
 * caller's struct: their sizes and every field are ABI, as the image's.  A
 * later release adds fields only out of reserved[] (0 until then), and says
 * so in struct_version ("version" is the ELF symbol version's).  No padding:
 * 4-byte fields, then 8-byte ones, then pointer-sized ones.
 */
#define VDSOKIT_SYMBOL_VERSION 1
struct vdsokit_symbol {
	unsigned struct_version; /* VDSOKIT_SYMBOL_VERSION: the fields filled */
	int version_index;       /* versym & 0x7fff, -1 if none               */
	int version_hidden;      /* versym & 0x8000                           */
	unsigned type;           /* STT_*                                     */
	unsigned bind;           /* STB_*                                     */
	unsigned visibility;     /* STV_*                                     */
	unsigned shndx;          /* st_shndx                                  */
	unsigned reserved32;     /* 0                                         */
	uint64_t value;          /* st_value                                  */
	uint64_t size;           /* st_size                                   */
	uint64_t offset;         /* st_value converted to an offset in image  */
	const char *name;
	const char *version;     /* NULL: unversioned (no DT_VERSYM)          */
	const void *address;     /* data + offset, NULL if outside the image  */
	uintptr_t reserved[5];   /* 0                                         */
};

#define VDSOKIT_VERDEF_VERSION 1
struct vdsokit_verdef {
	unsigned struct_version; /* VDSOKIT_VERDEF_VERSION: the fields filled */
	unsigned index;          /* vd_ndx                                    */
	unsigned flags;          /* vd_flags (VER_FLG_BASE = 1)               */
	uint32_t hash;           /* vd_hash                                   */
	unsigned aux_count;      /* vd_cnt                                    */
	unsigned reserved32;     /* 0                                         */
	const char *name;        /* first Verdaux name                        */
	const char *parent;      /* second Verdaux name, or NULL              */
	uintptr_t reserved[6];   /* 0                                         */
};

/* 0 or a positive enum vdsokit_image_error. */
int vdsokit_image_parse(struct vdsokit_image *img, const void *data, size_t size);
const char *vdsokit_image_strerror(int error);
/*
 * A defined function (or untyped) global/weak symbol of that name whose
 * version matches (version NULL: any; unversioned images match any).
 * 0 and *sym filled, or -ENOENT.
 */
int vdsokit_image_lookup(const struct vdsokit_image *img, const char *name,
		      const char *version, struct vdsokit_symbol *sym);
/* Symbol index i, 0 <= i < symbol_count: 0, or -EINVAL if out of range, -ENOEXEC if malformed. */
int vdsokit_image_symbol(const struct vdsokit_image *img, uint32_t i, struct vdsokit_symbol *sym);
/* Version definition i, 0 <= i < verdef_count, in chain order. */
int vdsokit_image_verdef(const struct vdsokit_image *img, uint32_t i, struct vdsokit_verdef *def);
/* The ELF (SysV) hash of a string, as DT_HASH and vd_hash use it. */
uint32_t vdsokit_elf_hash(const char *name);
/* The GNU (DJB) hash of a string, as DT_GNU_HASH uses it. */
uint32_t vdsokit_gnu_hash(const char *name);
/* "x86_64", "aarch64", … for an e_machine (and class), or NULL. */
const char *vdsokit_machine_name(unsigned machine, unsigned elf_class);

/* ---------------------------------------------------------------------- */
/* Inline calls                                                           */
/* ---------------------------------------------------------------------- */

/*
 * Where the vDSO is called like any C function (every ABI but powerpc's),
 * vdsokit_clock_gettime(), vdsokit_clock_getres() and vdsokit_time(), and
 * vdsokit_getcpu() on x86 (x86_64, x32, i386), are inlined into the
 * caller: a plain load of the route table below and the call, what the
 * libc's own call costs.  Everything else is the library's
 * out-of-line code.  Define VDSOKIT_NO_INLINE to always call the library's
 * functions.
 *
 * The names below are private to this header.  A program that inlines the
 * calls has the route table's layout built in (and may hold its own copy
 * of it, a COPY relocation of its size): the table's name carries its
 * layout's version, so a library with another layout is refused by the
 * loader instead of misread.
 */

/* The kernel's old_timespec32: what a 32-bit-time vDSO entry fills. */
struct vdsokit__timespec32 {
	int32_t tv_sec;
	int32_t tv_nsec;
};

/*
 * The routes: what the library moves, each field once, from its initial
 * value to its final one (or, for a 32-bit-time entry found wrapped after
 * 2038, to the syscall), and both values send a call the right way.  So
 * each field is read with a plain load, in any order, and no call pays a
 * barrier.
 *
 * clock_gettime and clock_getres: the function that answers each clock id,
 * by the id modulo 32, so a call is one load and the call (glibc's is one
 * load of its entry).  Before a resolution every slot holds the library's
 * first-call function, which resolves; after, a clock the vDSO reads in
 * user space holds its 64-bit-time entry (or, where the kernel has only a
 * 32-bit-time one, the library's function that widens it), any other the
 * library's syscall.  An id outside 0..31 lands on a slot whose function
 * answers any id: the syscall, or the vDSO's entry, which makes the syscall
 * itself for a clock it cannot read.
 */
#define VDSOKIT__CLOCK_SLOTS 32
struct vdsokit__routes_v3 {
	int (*gettime[VDSOKIT__CLOCK_SLOTS])(clockid_t, struct vdsokit_timespec *);
	int (*getres[VDSOKIT__CLOCK_SLOTS])(clockid_t, struct vdsokit_timespec *);
	int64_t (*time)(int64_t *);  /* a 64-bit time(); NULL: the library's */
	long (*time32)(long *);      /* a 32-bit time() (i386); NULL: none   */
	uint32_t time_from_coarse;   /* ILP32: time() is CLOCK_REALTIME_COARSE's seconds */
	/*
	 * getcpu: the rseq area's cpu_id, as its offset from the thread pointer
	 * (a multiple of 4) with VDSOKIT__RSEQ_* in the low bits; 0: none.
	 */
	intptr_t rseq_cpu;
	int (*getcpu)(unsigned *, unsigned *, void *); /* NULL: none */
	/* The library's calls alone read these: each NULL until resolved, or none. */
	int (*gettimeofday)(void *, void *);  /* the kernel's own timeval */
	long (*getrandom)(void *, size_t, unsigned, void *, size_t);
	unsigned long (*thread_area)(void);   /* m68k: the thread pointer, in %d0 */
};
#define VDSOKIT__RSEQ_CPU 1  /* cpu_id is current in every thread that registered */
#define VDSOKIT__RSEQ_NODE 2 /* node_id too, 16 bytes after cpu_id */
#define VDSOKIT__RSEQ_NODE_AFTER_CPU 16
#define VDSOKIT__CLOCK_REALTIME_COARSE 5 /* Linux's, which strict ISO C does not declare */
extern struct vdsokit__routes_v3 vdsokit__routes_v3;

/*
 * For tools that call vDSO entries themselves: MIPS vDSOs before the
 * generic one of Linux 5.4 answer -ENOSYS for "ask the kernel" (a clock they
 * cannot read).  The routes never hold such an entry (the library puts it
 * behind its own function, which asks), so the function a clock's slot
 * holds answers for itself and the inline call is a tail call.
 */
#if defined(__mips__)
#define VDSOKIT__VDSO_MAY_DECLINE 1
#else
#define VDSOKIT__VDSO_MAY_DECLINE 0
#endif

#if !defined(VDSOKIT_NO_INLINE) && !defined(__powerpc__)
#define VDSOKIT_INLINE_GETTIME 1
#if !defined(__LP64__) && !(defined(__x86_64__) && defined(__ILP32__))
/* An ABI whose kernel may have 32-bit-time vDSO entries only (x32's take 64-bit time). */
#define VDSOKIT__INLINE_TIME32 1
#endif

/*
 * clock_gettime and clock_getres alike: the clock's slot, and one call
 * through it, a tail call (MIPS PIC code can tail-call a pointer it
 * loaded, not a function by its name).
 */
static __inline__ __attribute__((always_inline)) int
vdsokit__clock_inline(int (*const *route)(clockid_t, struct vdsokit_timespec *), clockid_t clock,
		      struct vdsokit_timespec *ts)
{
	return __atomic_load_n(&route[(unsigned)clock % VDSOKIT__CLOCK_SLOTS], __ATOMIC_RELAXED)(clock, ts);
}
#define vdsokit_clock_gettime(clock, ts) vdsokit__clock_inline(vdsokit__routes_v3.gettime, (clock), (ts))
#define vdsokit_clock_getres(clock, res) vdsokit__clock_inline(vdsokit__routes_v3.getres, (clock), (res))

#ifndef VDSOKIT__INLINE_TIME32
#define VDSOKIT_INLINE_TIME 1
/* 64-bit time here: the vDSO's time() cannot fail nor wrap. */
static __inline__ __attribute__((always_inline)) int vdsokit__time_inline(int64_t *t)
{
	int64_t (*fn)(int64_t *) = __atomic_load_n(&vdsokit__routes_v3.time, __ATOMIC_RELAXED);
	if (__builtin_expect(fn != 0, 1)) {
		fn(t);
		return 0;
	}
	return vdsokit_time(t);
}
#else
/*
 * Where the library reads time() as CLOCK_REALTIME_COARSE's seconds (no
 * time() entry: all ILP32 ABIs but i386), the inlined clock_gettime reads
 * them here; where it uses a 32-bit time() entry (i386), that entry is
 * called here and its answer widened; else the library's call.
 */
static __inline__ __attribute__((always_inline)) int vdsokit__time_inline(int64_t *t)
{
	long (*time32)(long *);
	if (__builtin_expect(__atomic_load_n(&vdsokit__routes_v3.time_from_coarse, __ATOMIC_RELAXED) != 0, 1)) {
		struct vdsokit_timespec ts;
		int r = vdsokit_clock_gettime(VDSOKIT__CLOCK_REALTIME_COARSE, &ts);
		if (__builtin_expect(r != 0, 0))
			return r;
		if (t)
			*t = ts.tv_sec;
		return 0;
	}
	time32 = __atomic_load_n(&vdsokit__routes_v3.time32, __ATOMIC_RELAXED);
	if (__builtin_expect(time32 != 0, 1)) {
		long v = time32((long *)0);
		if (__builtin_expect(v >= 0, 1)) {
			if (t)
				*t = v;
			return 0;
		}
	}
	return vdsokit_time(t);
}
#endif
#define vdsokit_time(t) vdsokit__time_inline(t)

/*
 * A u32 of this thread's rseq area, relative to the segment the thread
 * pointer is the base of (volatile: the kernel rewrites it).  The offset
 * (of either sign: glibc 2.35-2.40 keep the area in struct pthread, above
 * the thread pointer; others may put it below) is widened to 64 bits with
 * its sign, for x32: a negative one zero-extended from its 32-bit register
 * would address 4 GiB above the area.
 */
#if defined(__x86_64__)
#define VDSOKIT__RSEQ_LOAD(out, offset) \
	__asm__ volatile("movl %%fs:(%1), %0" : "=r"(out) : "r"((int64_t)(offset)))
#elif defined(__i386__)
#define VDSOKIT__RSEQ_LOAD(out, offset) __asm__ volatile("movl %%gs:(%1), %0" : "=r"(out) : "r"(offset))
#endif
#ifdef VDSOKIT__RSEQ_LOAD
/*
 * getcpu(&cpu, NULL) as glibc's sched_getcpu(): one load of the rseq area's
 * cpu_id.  With the node: cpu_id, node_id, cpu_id again (the kernel rewrites
 * both on migration: equal cpu_ids mean a pair from one CPU).  Where the
 * area cannot answer (none, no node_id, not registered in this thread), the
 * vDSO's getcpu; else the library's call.
 */
static __inline__ __attribute__((always_inline)) int vdsokit__getcpu_inline(unsigned *cpu, unsigned *node)
{
	intptr_t rseq = __atomic_load_n(&vdsokit__routes_v3.rseq_cpu, __ATOMIC_RELAXED);
	intptr_t at = rseq & ~(intptr_t)3;
	int id = 0, again = 0; /* set by the asm loads; cppcheck cannot see that */
	unsigned nid;
	if (node == NULL) {
		if (__builtin_expect(cpu != NULL && (rseq & VDSOKIT__RSEQ_CPU), 1)) {
			VDSOKIT__RSEQ_LOAD(id, at);
			if (__builtin_expect(id >= 0, 1)) {
				*cpu = (unsigned)id;
				return 0;
			}
		}
	} else if (__builtin_expect(rseq & VDSOKIT__RSEQ_NODE, 1)) {
		do {
			VDSOKIT__RSEQ_LOAD(id, at);
			VDSOKIT__RSEQ_LOAD(nid, at + VDSOKIT__RSEQ_NODE_AFTER_CPU);
			VDSOKIT__RSEQ_LOAD(again, at);
		} while (__builtin_expect(again != id, 0));
		if (__builtin_expect(id >= 0, 1)) {
			if (cpu)
				*cpu = (unsigned)id;
			*node = nid;
			return 0;
		}
	}
	{
		int (*fn)(unsigned *, unsigned *, void *) =
			__atomic_load_n(&vdsokit__routes_v3.getcpu, __ATOMIC_RELAXED);
		if (__builtin_expect(fn != 0, 1))
			return fn(cpu, node, 0); /* x86's never declines */
	}
	return vdsokit_getcpu(cpu, node);
}
#define vdsokit_getcpu(cpu, node) vdsokit__getcpu_inline((cpu), (node))
#endif
#endif

/*
 * The names of 0.4 and earlier, for source written against them: one word,
 * "route", now names which way a call goes.
 */
#ifndef VDSOKIT_NO_OLD_NAMES
#define vdsokit_path vdsokit_route_info
#define vdsokit_path_of vdsokit_route_of
#define vdsokit_via vdsokit_route
#define VDSOKIT_VIA_AUTO VDSOKIT_ROUTE_AUTO
#define VDSOKIT_VIA_VDSO VDSOKIT_ROUTE_VDSO
#define VDSOKIT_VIA_SYSCALL VDSOKIT_ROUTE_SYSCALL
#endif

#ifdef __cplusplus
}
#endif
#endif /* VDSOKIT_H */
