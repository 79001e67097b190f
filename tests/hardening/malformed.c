// SPDX-License-Identifier: MIT
/*
 * The malformed-image corpus.  Each case takes a valid image (the host's
 * vDSO, copied at test time, and when `make images` built them the
 * synthetic ppc32 (32-bit big-endian), s390x (64-bit big-endian, 8-byte
 * hash entries), i386 and x86_64 images) and breaks exactly one thing the
 * parser checks.  For every case, in a child process of its own:
 *
 *   - the image sits at the very end of a mapping followed by a PROT_NONE
 *     guard page, so a read past its last byte kills the child;
 *   - vdsokit_image_parse() returns exactly the vdsokit_image_error expected;
 *   - vdsokit_use_image() with those bytes, then vdsokit_init(): the library
 *     rejects the image (-ENOEXEC, the same error recorded), reports the
 *     syscall path with reason "bad image", and its calls agree with the
 *     raw syscalls.
 *
 * Images of another architecture, whole or with a field changed that the
 * parser does not judge, must parse and then be refused by the library as
 * the wrong architecture.  A change the parser must ignore (section
 * headers) must leave every symbol as it was.
 *
 * With "--write DIR" it writes every case whose parse must fail to
 * DIR/<base>-<case>.so and lists them in DIR/cases.tsv (file, error
 * number, error text), for tests/hardening/inspect.t.  The synthetic images
 * are read from $VDSOKIT_IMAGES, else $VDSOKIT_BUILD/images.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "internal.h" /* vdsokit_state()->image_error: the error the library recorded */
#include "image.h"    /* vdsokit_lib_image_extent: the host vDSO's size, as the library finds it */
#include "../tap.h"

/* ---- a writable view of an ELF image of either class and byte order ---- */

struct elf {
	unsigned char *d;
	size_t size;
	int is64, be;
};

enum { PT_NULL_ = 0, PT_LOAD_ = 1, PT_DYNAMIC_ = 2 };
enum { DT_NULL_ = 0, DT_HASH_ = 4, DT_STRTAB_ = 5, DT_SYMTAB_ = 6, DT_STRSZ_ = 10,
       DT_SYMENT_ = 11, DT_DEBUG_ = 21 };
#define DT_GNU_HASH_  0x6ffffef5u
#define DT_VERSYM_    0x6ffffff0u
#define DT_VERDEF_    0x6ffffffcu
#define DT_VERDEFNUM_ 0x6ffffffdu

static uint64_t get(const struct elf *e, size_t off, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)e->d[off + i] << (8 * (e->be ? bytes - 1 - i : i));
	return v;
}

static void put(struct elf *e, size_t off, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++)
		e->d[off + i] = (unsigned char)(v >> (8 * (e->be ? bytes - 1 - i : i)));
}

static unsigned word(const struct elf *e) { return e->is64 ? 8 : 4; }
static uint64_t word_max(const struct elf *e) { return e->is64 ? UINT64_MAX : UINT32_MAX; }
static size_t ehdr_size(const struct elf *e) { return e->is64 ? 64 : 52; }
static size_t e_phoff_at(const struct elf *e) { return e->is64 ? 32 : 28; }
static size_t e_phentsize_at(const struct elf *e) { return e->is64 ? 54 : 42; }
static size_t e_phnum_at(const struct elf *e) { return e->is64 ? 56 : 44; }
/* Offsets inside an Elf_Phdr. */
static size_t p_offset_at(const struct elf *e) { return e->is64 ? 8 : 4; }
static size_t p_vaddr_at(const struct elf *e) { return e->is64 ? 16 : 8; }
static size_t p_filesz_at(const struct elf *e) { return e->is64 ? 32 : 16; }

static size_t phoff(const struct elf *e) { return (size_t)get(e, e_phoff_at(e), word(e)); }
static unsigned phentsize(const struct elf *e) { return (unsigned)get(e, e_phentsize_at(e), 2); }
static unsigned phnum(const struct elf *e) { return (unsigned)get(e, e_phnum_at(e), 2); }

/* Offset of the first program header of that type, or 0. */
static size_t find_phdr(const struct elf *e, uint32_t type)
{
	for (unsigned i = 0; i < phnum(e); i++) {
		size_t ph = phoff(e) + (size_t)i * phentsize(e);
		if (get(e, ph, 4) == type)
			return ph;
	}
	return 0;
}

static uint64_t load_bias(const struct elf *e)
{
	size_t ph = find_phdr(e, PT_LOAD_);
	return get(e, ph + p_vaddr_at(e), word(e)) - get(e, ph + p_offset_at(e), word(e));
}

/* Offset of the d_tag of the first dynamic entry with that tag, or 0. */
static size_t find_dyn(const struct elf *e, uint64_t tag)
{
	size_t ph = find_phdr(e, PT_DYNAMIC_);
	if (!ph)
		return 0;
	size_t start = (size_t)get(e, ph + p_offset_at(e), word(e));
	size_t len = (size_t)get(e, ph + p_filesz_at(e), word(e));
	for (size_t d = start; d + 2 * word(e) <= start + len; d += 2 * word(e)) {
		uint64_t t = get(e, d, word(e));
		if (t == tag)
			return d;
		if (t == DT_NULL_)
			break;
	}
	return 0;
}

static uint64_t dyn_val(const struct elf *e, size_t d) { return get(e, d + word(e), word(e)); }
static void set_dyn_val(struct elf *e, size_t d, uint64_t v) { put(e, d + word(e), word(e), v); }

/* The file offset of a dynamic table (by tag), or 0 when absent. */
static size_t table_offset(const struct elf *e, uint64_t tag)
{
	size_t d = find_dyn(e, tag);
	return d ? (size_t)(dyn_val(e, d) - load_bias(e)) : 0;
}

/* ---- the cases: each breaks one thing, or returns -1 when it cannot ---- */

#define NOT_APPLICABLE (-1)

static int set_dyn(struct elf *e, uint64_t tag, uint64_t v)
{
	size_t d = find_dyn(e, tag);
	if (!d)
		return NOT_APPLICABLE;
	set_dyn_val(e, d, v);
	return 0;
}

/* Hides a dynamic entry: DT_DEBUG is a tag the parser ignores. */
static int drop_dyn(struct elf *e, uint64_t tag)
{
	size_t d = find_dyn(e, tag);
	if (!d)
		return NOT_APPLICABLE;
	put(e, d, word(e), DT_DEBUG_);
	return 0;
}

/* An address one past the image, as the image's own vaddrs count. */
static uint64_t past_end(const struct elf *e) { return load_bias(e) + e->size; }

static int m_empty(struct elf *e) { e->size = 0; return 0; }
static int m_short_ident(struct elf *e) { e->size = 10; return 0; }
static int m_short_ehdr(struct elf *e) { e->size = ehdr_size(e) - 1; return 0; }
static int m_magic(struct elf *e) { e->d[1] = 'e'; return 0; }
static int m_class(struct elf *e) { e->d[4] = 3; return 0; }
static int m_data(struct elf *e) { e->d[5] = 3; return 0; }
static int m_ident_version(struct elf *e) { e->d[6] = 0; return 0; }
static int m_e_version(struct elf *e) { put(e, 20, 4, 2); return 0; }
static int m_e_type(struct elf *e) { put(e, 16, 2, 2 /* ET_EXEC */); return 0; }
static int m_phoff_past(struct elf *e) { put(e, e_phoff_at(e), word(e), e->size); return 0; }
static int m_phoff_wraps(struct elf *e)
{
	put(e, e_phoff_at(e), word(e), word_max(e) - 8);
	return 0;
}
static int m_phentsize_big(struct elf *e) { put(e, e_phentsize_at(e), 2, phentsize(e) + 8); return 0; }
static int m_phentsize_small(struct elf *e) { put(e, e_phentsize_at(e), 2, phentsize(e) - 8); return 0; }
static int m_phentsize_zero(struct elf *e) { put(e, e_phentsize_at(e), 2, 0); return 0; }
static int m_phnum_zero(struct elf *e) { put(e, e_phnum_at(e), 2, 0); return 0; }
static int m_phnum_huge(struct elf *e) { put(e, e_phnum_at(e), 2, 0xffff); return 0; }
static int m_cut_in_phdrs(struct elf *e)
{
	e->size = phoff(e) + (size_t)phnum(e) * phentsize(e) - 1;
	return 0;
}

static int m_no_load(struct elf *e)
{
	size_t ph;
	while ((ph = find_phdr(e, PT_LOAD_)))
		put(e, ph, 4, PT_NULL_);
	return 0;
}

/* The first PT_LOAD maps its file offset below address 0. */
static int m_load_below_zero(struct elf *e)
{
	size_t ph = find_phdr(e, PT_LOAD_);
	put(e, ph + p_offset_at(e), word(e), get(e, ph + p_vaddr_at(e), word(e)) + 4096);
	return 0;
}

static int m_no_dynamic(struct elf *e) { put(e, find_phdr(e, PT_DYNAMIC_), 4, PT_NULL_); return 0; }
static int m_dynamic_past(struct elf *e)
{
	put(e, find_phdr(e, PT_DYNAMIC_) + p_offset_at(e), word(e), e->size);
	return 0;
}
static int m_dynamic_size_wraps(struct elf *e)
{
	put(e, find_phdr(e, PT_DYNAMIC_) + p_filesz_at(e), word(e), word_max(e) - 7);
	return 0;
}
static int m_cut_in_dynamic(struct elf *e)
{
	size_t ph = find_phdr(e, PT_DYNAMIC_);
	e->size = (size_t)(get(e, ph + p_offset_at(e), word(e)) + get(e, ph + p_filesz_at(e), word(e))) - 1;
	return 0;
}

static int m_no_strtab(struct elf *e) { return drop_dyn(e, DT_STRTAB_); }
static int m_strtab_past(struct elf *e) { return set_dyn(e, DT_STRTAB_, past_end(e)); }
static int m_strtab_max(struct elf *e) { return set_dyn(e, DT_STRTAB_, word_max(e)); }
static int m_strsz_past(struct elf *e) { return set_dyn(e, DT_STRSZ_, e->size); }
static int m_strsz_wraps(struct elf *e) { return set_dyn(e, DT_STRSZ_, word_max(e)); }
static int m_strsz_zero(struct elf *e) { return set_dyn(e, DT_STRSZ_, 0); }
static int m_strtab_unterminated(struct elf *e)
{
	size_t off = table_offset(e, DT_STRTAB_), d = find_dyn(e, DT_STRSZ_);
	if (!off || !d)
		return NOT_APPLICABLE;
	e->d[off + dyn_val(e, d) - 1] = 'x';
	return 0;
}
/* DT_STRSZ one byte short: the last string loses its NUL. */
static int m_strsz_cuts_string(struct elf *e)
{
	size_t off = table_offset(e, DT_STRTAB_), d = find_dyn(e, DT_STRSZ_);
	if (!off || !d || dyn_val(e, d) < 2 || e->d[off + dyn_val(e, d) - 2] == '\0')
		return NOT_APPLICABLE;
	set_dyn_val(e, d, dyn_val(e, d) - 1);
	return 0;
}

static int m_no_symtab(struct elf *e) { return drop_dyn(e, DT_SYMTAB_); }
static int m_symtab_past(struct elf *e) { return set_dyn(e, DT_SYMTAB_, past_end(e)); }
static int m_syment_wrong(struct elf *e)
{
	size_t d = find_dyn(e, DT_SYMENT_);
	if (!d)
		return NOT_APPLICABLE;
	set_dyn_val(e, d, dyn_val(e, d) + 1);
	return 0;
}
/* The table starts inside the image, but its symbols run past the end. */
static int m_symtab_near_end(struct elf *e) { return set_dyn(e, DT_SYMTAB_, past_end(e) - (e->is64 ? 24 : 16)); }

static int m_no_hash(struct elf *e)
{
	int a = drop_dyn(e, DT_HASH_), b = drop_dyn(e, DT_GNU_HASH_);
	return a && b ? NOT_APPLICABLE : 0;
}

/* DT_HASH entries: 8 bytes on s390x and alpha, 4 elsewhere. */
static unsigned hash_entry(const struct elf *e)
{
	unsigned machine = (unsigned)get(e, 18, 2);
	return e->is64 && (machine == 22 || machine == 0x9026) ? 8 : 4;
}
static int m_hash_past(struct elf *e) { return set_dyn(e, DT_HASH_, past_end(e)); }
static int set_hash_word(struct elf *e, unsigned index, uint64_t v)
{
	size_t off = table_offset(e, DT_HASH_);
	if (!off)
		return NOT_APPLICABLE;
	put(e, off + index * hash_entry(e), hash_entry(e), v);
	return 0;
}
static int m_hash_nbucket_zero(struct elf *e) { return set_hash_word(e, 0, 0); }
static int m_hash_nbucket_huge(struct elf *e) { return set_hash_word(e, 0, 0xffffffffu); }
static int m_hash_nchain_huge(struct elf *e) { return set_hash_word(e, 1, 0xffffffffu); }
/* nchain one entry too large for the bytes left after the table's start. */
static int m_hash_runs_past(struct elf *e)
{
	size_t off = table_offset(e, DT_HASH_);
	if (!off)
		return NOT_APPLICABLE;
	uint64_t nbucket = get(e, off, hash_entry(e));
	uint64_t entries = (e->size - off) / hash_entry(e);
	return set_hash_word(e, 1, entries - 2 - nbucket + 1);
}

static int m_gnu_past(struct elf *e) { return set_dyn(e, DT_GNU_HASH_, past_end(e)); }
static int set_gnu_word(struct elf *e, unsigned index, uint32_t v)
{
	size_t off = table_offset(e, DT_GNU_HASH_);
	if (!off)
		return NOT_APPLICABLE;
	put(e, off + index * 4, 4, v);
	return 0;
}
static int m_gnu_nbucket_zero(struct elf *e) { return set_gnu_word(e, 0, 0); }
static int m_gnu_nbucket_huge(struct elf *e) { return set_gnu_word(e, 0, 0xffffffffu); }
static int m_gnu_bloom_zero(struct elf *e) { return set_gnu_word(e, 2, 0); }
static int m_gnu_bloom_not_pow2(struct elf *e) { return set_gnu_word(e, 2, 3); }
static int m_gnu_bloom_overflows(struct elf *e) { return set_gnu_word(e, 2, 0x80000000u); }
/* Every bucket now starts below symoffset. */
static int m_gnu_bucket_below_symoffset(struct elf *e) { return set_gnu_word(e, 1, 0xffffffffu); }
/*
 * Every chain word loses its end bit: the walk for the symbol count runs
 * past the table.  Only where DT_HASH gives the true count to compare.
 */
static int m_gnu_chain_endless(struct elf *e)
{
	size_t off = table_offset(e, DT_GNU_HASH_), hash = table_offset(e, DT_HASH_);
	if (!off || !hash)
		return NOT_APPLICABLE;
	uint32_t nbucket = (uint32_t)get(e, off, 4), symoffset = (uint32_t)get(e, off + 4, 4);
	uint32_t bloom = (uint32_t)get(e, off + 8, 4);
	uint64_t nchain = get(e, hash + hash_entry(e), hash_entry(e));
	size_t chain = off + 16 + (size_t)bloom * word(e) + (size_t)nbucket * 4;
	for (uint64_t i = symoffset; i < nchain; i++)
		put(e, chain + (i - symoffset) * 4, 4, get(e, chain + (i - symoffset) * 4, 4) & ~1u);
	return 0;
}

static int m_versym_past(struct elf *e) { return set_dyn(e, DT_VERSYM_, past_end(e)); }
static int m_versym_near_end(struct elf *e) { return set_dyn(e, DT_VERSYM_, past_end(e) - 2); }
static int m_verdef_past(struct elf *e) { return set_dyn(e, DT_VERDEF_, past_end(e)); }

/* Offset of the last Verdef of the chain, or 0. */
static size_t last_verdef(const struct elf *e, size_t *first)
{
	size_t off = table_offset(e, DT_VERDEF_);
	*first = off;
	if (!off)
		return 0;
	for (int n = 0; n < 100; n++) {
		uint32_t next = (uint32_t)get(e, off + 16, 4);
		if (!next)
			return off;
		off += next;
	}
	return 0;
}
/* vd_next of the last entry leads back to the first in 32-bit arithmetic. */
static int m_verdef_loops(struct elf *e)
{
	size_t first, last = last_verdef(e, &first);
	if (!last)
		return NOT_APPLICABLE;
	put(e, last + 16, 4, (uint32_t)(first - last) ? (uint32_t)(first - last) : (uint32_t)-20);
	return 0;
}
/* vd_next smaller than a Verdef: entries overlap. */
static int m_verdef_overlaps(struct elf *e)
{
	size_t first, last = last_verdef(e, &first);
	if (!last)
		return NOT_APPLICABLE;
	put(e, first + 16, 4, 4);
	return 0;
}
static int m_verdef_next_past(struct elf *e)
{
	size_t first, last = last_verdef(e, &first);
	if (!last)
		return NOT_APPLICABLE;
	put(e, last + 16, 4, (uint32_t)(e->size - last));
	return 0;
}
static int m_verdef_aux_past(struct elf *e)
{
	size_t first, last = last_verdef(e, &first);
	if (!last)
		return NOT_APPLICABLE;
	put(e, first + 12, 4, (uint32_t)(e->size - first - 4));
	return 0;
}
static int m_verdaux_name_outside(struct elf *e)
{
	size_t first, last = last_verdef(e, &first), d = find_dyn(e, DT_STRSZ_);
	if (!last || !d)
		return NOT_APPLICABLE;
	put(e, first + get(e, first + 12, 4), 4, dyn_val(e, d));
	return 0;
}
static int m_verdefnum_lies(struct elf *e)
{
	size_t d = find_dyn(e, DT_VERDEFNUM_);
	if (!d)
		return NOT_APPLICABLE;
	set_dyn_val(e, d, dyn_val(e, d) + 1);
	return 0;
}

/* The bytes of one architecture read as another's: parse fine, refused by the library. */
static int m_other_machine(struct elf *e)
{
	unsigned machine = (unsigned)get(e, 18, 2);
	/* x86_64 -> aarch64; s390x -> alpha (8-byte DT_HASH entries too); others -> x86_64 */
	unsigned other = machine == 62 ? 183 : machine == 22 ? 0x9026 : 62;
	/* Never the machine of the host running the test (aarch64 under qemu-user): sparc64. */
	if (other == ARCH_ELF_MACHINE)
		other = 43;
	put(e, 18, 2, other);
	return 0;
}
/* EI_DATA flipped: every multi-byte field reads byte-swapped, e_type first. */
static int m_byte_order_flipped(struct elf *e) { e->d[5] ^= 3; return 0; }
/*
 * EI_CLASS flipped: the header is read with the other class's layout,
 * where e_phentsize falls on bytes that are not a program header size.
 */
static int m_class_flipped(struct elf *e) { e->d[4] ^= 3; return 0; }

/*
 * Section headers that lie in every way: the parser must not read them at
 * all (a stripped vDSO has none), so the image still parses, the same.
 */
static int m_section_headers_lie(struct elf *e)
{
	put(e, e->is64 ? 40 : 32, word(e), word_max(e) - 4); /* e_shoff */
	put(e, e->is64 ? 58 : 46, 2, 1);                     /* e_shentsize */
	put(e, e->is64 ? 60 : 48, 2, 0xffff);                /* e_shnum */
	put(e, e->is64 ? 62 : 50, 2, 0xfffe);                /* e_shstrndx */
	return 0;
}

/* lib_error: the library records parse_error. */
#define LIB_SAME (-1)
/* lib_error: a harmless change, the image is as good as before. */
#define ACCEPTED (-2)

struct mutation {
	const char *name;
	int (*apply)(struct elf *);
	int parse_error;  /* what vdsokit_image_parse returns */
	int lib_error;    /* what vdsokit_use_image + vdsokit_init record, LIB_SAME: parse_error */
};

static const struct mutation mutations[] = {
	{ "empty file", m_empty, VDSOKIT_IMAGE_TRUNCATED, LIB_SAME },
	{ "10 bytes: e_ident cut", m_short_ident, VDSOKIT_IMAGE_TRUNCATED, LIB_SAME },
	{ "ELF header cut by one byte", m_short_ehdr, VDSOKIT_IMAGE_TRUNCATED, LIB_SAME },
	{ "bad magic", m_magic, VDSOKIT_IMAGE_NOT_ELF, LIB_SAME },
	{ "EI_CLASS 3", m_class, VDSOKIT_IMAGE_BAD_CLASS, LIB_SAME },
	{ "EI_DATA 3", m_data, VDSOKIT_IMAGE_BAD_BYTE_ORDER, LIB_SAME },
	{ "EI_VERSION 0", m_ident_version, VDSOKIT_IMAGE_BAD_VERSION, LIB_SAME },
	{ "e_version 2", m_e_version, VDSOKIT_IMAGE_BAD_VERSION, LIB_SAME },
	{ "e_type ET_EXEC", m_e_type, VDSOKIT_IMAGE_NOT_SHARED, LIB_SAME },
	{ "e_phoff at the end of the file", m_phoff_past, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "e_phoff + phdrs overflows", m_phoff_wraps, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "e_phentsize 8 too large", m_phentsize_big, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "e_phentsize 8 too small", m_phentsize_small, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "e_phentsize 0", m_phentsize_zero, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "e_phnum 0", m_phnum_zero, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "e_phnum 65535: phdrs past the end", m_phnum_huge, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "file cut inside the program headers", m_cut_in_phdrs, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "first PT_LOAD below address 0", m_load_below_zero, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "no PT_LOAD", m_no_load, VDSOKIT_IMAGE_NO_LOAD, LIB_SAME },
	{ "no PT_DYNAMIC", m_no_dynamic, VDSOKIT_IMAGE_NO_DYNAMIC, LIB_SAME },
	{ "PT_DYNAMIC at the end of the file", m_dynamic_past, VDSOKIT_IMAGE_BAD_DYNAMIC, LIB_SAME },
	{ "PT_DYNAMIC offset + size overflows", m_dynamic_size_wraps, VDSOKIT_IMAGE_BAD_DYNAMIC, LIB_SAME },
	{ "file cut inside the dynamic section", m_cut_in_dynamic, VDSOKIT_IMAGE_BAD_DYNAMIC, LIB_SAME },
	{ "no DT_STRTAB", m_no_strtab, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "DT_STRTAB past the end", m_strtab_past, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "DT_STRTAB at the highest address", m_strtab_max, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "DT_STRSZ past the end", m_strsz_past, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "DT_STRTAB + DT_STRSZ overflows", m_strsz_wraps, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "DT_STRSZ 0", m_strsz_zero, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "string table without its final NUL", m_strtab_unterminated, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "DT_STRSZ cuts the last string", m_strsz_cuts_string, VDSOKIT_IMAGE_BAD_STRTAB, LIB_SAME },
	{ "no DT_SYMTAB", m_no_symtab, VDSOKIT_IMAGE_BAD_SYMTAB, LIB_SAME },
	{ "DT_SYMTAB past the end", m_symtab_past, VDSOKIT_IMAGE_BAD_SYMTAB, LIB_SAME },
	{ "DT_SYMENT wrong", m_syment_wrong, VDSOKIT_IMAGE_BAD_SYMTAB, LIB_SAME },
	{ "symbols run past the end", m_symtab_near_end, VDSOKIT_IMAGE_BAD_SYMTAB, LIB_SAME },
	{ "neither DT_HASH nor DT_GNU_HASH", m_no_hash, VDSOKIT_IMAGE_NO_HASH, LIB_SAME },
	{ "DT_HASH past the end", m_hash_past, VDSOKIT_IMAGE_BAD_HASH, LIB_SAME },
	{ "DT_HASH nbucket 0", m_hash_nbucket_zero, VDSOKIT_IMAGE_BAD_HASH, LIB_SAME },
	{ "DT_HASH nbucket 2^32-1", m_hash_nbucket_huge, VDSOKIT_IMAGE_BAD_HASH, LIB_SAME },
	{ "DT_HASH nchain 2^32-1", m_hash_nchain_huge, VDSOKIT_IMAGE_BAD_HASH, LIB_SAME },
	{ "DT_HASH chains one entry past the end", m_hash_runs_past, VDSOKIT_IMAGE_BAD_HASH, LIB_SAME },
	{ "DT_GNU_HASH past the end", m_gnu_past, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "GNU hash with 0 buckets", m_gnu_nbucket_zero, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "GNU hash with 2^32-1 buckets", m_gnu_nbucket_huge, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "GNU hash bloom size 0", m_gnu_bloom_zero, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "GNU hash bloom size 3", m_gnu_bloom_not_pow2, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "GNU hash bloom size 2^31: bytes overflow", m_gnu_bloom_overflows, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "GNU hash buckets below symoffset", m_gnu_bucket_below_symoffset, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "GNU hash chains without an end", m_gnu_chain_endless, VDSOKIT_IMAGE_BAD_GNU_HASH, LIB_SAME },
	{ "DT_VERSYM past the end", m_versym_past, VDSOKIT_IMAGE_BAD_VERSYM, LIB_SAME },
	{ "DT_VERSYM entries run past the end", m_versym_near_end, VDSOKIT_IMAGE_BAD_VERSYM, LIB_SAME },
	{ "DT_VERDEF past the end", m_verdef_past, VDSOKIT_IMAGE_BAD_VERDEF, LIB_SAME },
	{ "verdef chain loops back to its start", m_verdef_loops, VDSOKIT_IMAGE_BAD_VERDEF, LIB_SAME },
	{ "verdef entries overlap (vd_next 4)", m_verdef_overlaps, VDSOKIT_IMAGE_BAD_VERDEF, LIB_SAME },
	{ "verdef vd_next past the end", m_verdef_next_past, VDSOKIT_IMAGE_BAD_VERDEF, LIB_SAME },
	{ "verdef vd_aux past the end", m_verdef_aux_past, VDSOKIT_IMAGE_BAD_VERDEF, LIB_SAME },
	{ "verdaux name outside the string table", m_verdaux_name_outside, VDSOKIT_IMAGE_BAD_VERDEF, LIB_SAME },
	{ "DT_VERDEFNUM one too many", m_verdefnum_lies, VDSOKIT_IMAGE_BAD_VERDEF, LIB_SAME },
	{ "byte order flipped", m_byte_order_flipped, VDSOKIT_IMAGE_NOT_SHARED, LIB_SAME },
	{ "class flipped", m_class_flipped, VDSOKIT_IMAGE_BAD_PHDR, LIB_SAME },
	{ "another architecture's e_machine", m_other_machine, VDSOKIT_IMAGE_OK, VDSOKIT_IMAGE_WRONG_ARCH },
	{ "section headers lie (never read)", m_section_headers_lie, VDSOKIT_IMAGE_OK, ACCEPTED },
};

/* ---- base images ------------------------------------------------------ */

struct base {
	const char *name;
	unsigned char *bytes;
	size_t size;
	int host;  /* this process's architecture */
};

/* Whether a parsed image is of this process's architecture, as vdso.c decides. */
static int is_host_arch(const struct vdsokit_image *img)
{
	int machine = img->machine == ARCH_ELF_MACHINE;
#ifdef ARCH_ELF_MACHINE_ALT
	machine |= img->machine == ARCH_ELF_MACHINE_ALT;
#endif
	return machine && img->elf_class == ARCH_ELF_CLASS && img->big_endian == ARCH_BIG_ENDIAN;
}

/*
 * Whether the public parser identified the image (it keeps the class and
 * byte order it read, even when the parse fails later) as of a class or
 * byte order other than the host's.
 */
static int other_class_or_order(const unsigned char *bytes, size_t size)
{
	struct vdsokit_image img;
	vdsokit_image_parse(&img, bytes, size);
	return img.elf_class && (img.elf_class != ARCH_ELF_CLASS || img.big_endian != ARCH_BIG_ENDIAN);
}

static int host_vdso(struct base *b)
{
	const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size;
	struct vdsokit_image scratch;
	if (!vdso || vdsokit_lib_image_extent(&scratch, vdso, page, &size) != 0)
		return -1;
	b->name = "host";
	b->size = size;
	b->bytes = malloc(size);
	if (!b->bytes)
		return -1;
	memcpy(b->bytes, vdso, size);
	b->host = 1;
	return 0;
}

static int image_file(struct base *b, const char *name, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	b->name = name;
	b->bytes = malloc(1 << 20);
	b->size = b->bytes ? fread(b->bytes, 1, 1 << 20, f) : 0;
	fclose(f);
	b->host = 0;
	return b->size ? 0 : -1;
}

/* ---- one case --------------------------------------------------------- */

/*
 * Copies the image so that its last byte is the last readable byte before
 * a PROT_NONE page.  The mapping is never unmapped: vdsokit_use_image wants
 * the bytes for the life of the process (the child's).
 */
static const unsigned char *behind_guard(const unsigned char *bytes, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t room = (size + page - 1) / page * page;
	if (room == 0)
		room = page;
	unsigned char *map = mmap(NULL, room + page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || mprotect(map + room, page, PROT_NONE) != 0)
		return NULL;
	unsigned char *start = map + room - size;
	memcpy(start, bytes, size);
	if (mprotect(map, room, PROT_READ) != 0)
		return NULL;
	return start;
}

/* Reads everything a parsed image offers, as the CLI would. */
static void read_everything(const struct vdsokit_image *img)
{
	struct vdsokit_symbol sym;
	struct vdsokit_verdef def;
	for (uint32_t i = 0; i < img->symbol_count; i++)
		if (vdsokit_image_symbol(img, i, &sym) == 0 && sym.name)
			vdsokit_image_lookup(img, sym.name, sym.version, &sym);
	for (uint32_t i = 0; i < img->verdef_count; i++)
		vdsokit_image_verdef(img, i, &def);
}

static long long ns(const struct vdsokit_timespec *t) { return (long long)t->tv_sec * 1000000000LL + t->tv_nsec; }

/* A result line from the child: "1 text" or "0 text". */
static void report(FILE *out, int cond, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(FILE *out, int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(out, "%d ", cond ? 1 : 0);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	va_end(ap);
	fflush(out);
}

enum { CHECKS_PER_CASE = 3 };

/* Whether every symbol of the intact image is found, the same, in the changed one. */
static int same_symbols(const struct vdsokit_image *changed, const struct base *base)
{
	struct vdsokit_image intact;
	struct vdsokit_symbol want, got;
	if (vdsokit_image_parse(&intact, base->bytes, base->size) != 0 ||
	    changed->symbol_count != intact.symbol_count || changed->verdef_count != intact.verdef_count)
		return 0;
	for (uint32_t i = 0; i < intact.symbol_count; i++) {
		if (vdsokit_image_symbol(&intact, i, &want) != 0)
			continue;
		if (vdsokit_image_symbol(changed, i, &got) != 0 || strcmp(want.name, got.name) != 0 ||
		    want.offset != got.offset || (want.version == NULL) != (got.version == NULL))
			return 0;
		int found_want = vdsokit_image_lookup(&intact, want.name, want.version, &want);
		int found_got = vdsokit_image_lookup(changed, want.name, want.version, &got);
		if (found_want != found_got || (found_want == 0 && want.offset != got.offset))
			return 0;
	}
	return 1;
}

static void child(FILE *out, const char *label, const unsigned char *bytes, size_t size,
		  int parse_error, int lib_error, const struct base *base)
{
	const unsigned char *data = behind_guard(bytes, size);
	if (!data) {
		report(out, 0, "%s: cannot map the image behind a guard page", label);
		return;
	}
	struct vdsokit_image img;
	int err = vdsokit_image_parse(&img, data, size);
	if (err == 0)
		read_everything(&img);
	report(out, err == parse_error, "%s: parse gives %d (%s), want %d (%s)", label, err,
	       vdsokit_image_strerror(err), parse_error, vdsokit_image_strerror(parse_error));
	if (lib_error == ACCEPTED) {
		/* This architecture's code, copied: never handed to the library to call. */
		report(out, err == 0 && same_symbols(&img, base),
		       "%s: every symbol and lookup as in the intact image", label);
		report(out, 1, "%s: nothing read outside the image", label);
		return;
	}

	int used = vdsokit_use_image(data, size);
	int init = vdsokit_init();
	struct vdsokit_route_info path;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &path);
	int recorded = vdsokit_lib_found()->image_error;
	report(out, used == 0 && init == -ENOEXEC && vdsokit_process_image() == NULL &&
		       path.route == VDSOKIT_ROUTE_SYSCALL && path.reason == VDSOKIT_REASON_BAD_IMAGE &&
		       recorded == lib_error,
	       "%s: library rejects it: use_image %d, init %d (want %d), error %d (want %d), "
	       "clock_gettime by %s (%s)", label, used, init, -ENOEXEC, recorded, lib_error,
	       vdsokit_route_name(path.route), vdsokit_reason_text(path.reason));

	struct vdsokit_timespec before, mid, after;
	unsigned cpu = UINT_MAX;
	int rb = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_MONOTONIC, &before);
	int rm = vdsokit_clock_gettime(CLOCK_MONOTONIC, &mid);
	int ra = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_MONOTONIC, &after);
	int rc = vdsokit_getcpu(&cpu, NULL);
	report(out, !rb && !rm && !ra && ns(&before) <= ns(&mid) && ns(&mid) <= ns(&after) &&
		       rc == 0 && cpu < 65536,
	       "%s: calls work through the syscalls (clock_gettime %d, getcpu %d cpu %u)",
	       label, rm, rc, cpu);
}

/* Runs one case in a child and prints its checks; a child that dies fails the case. */
static void run_case(const char *label, const unsigned char *bytes, size_t size,
		     int parse_error, int lib_error, const struct base *base)
{
	int fds[2];
	if (pipe(fds) != 0) {
		ok(0, "%s: pipe: %s", label, strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		FILE *out = fdopen(fds[1], "w");
		child(out, label, bytes, size, parse_error, lib_error, base);
		fclose(out);
		_exit(0);
	}
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	char line[512];
	int lines = 0;
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		ok(line[0] == '1', "%s", line + 2);
		lines++;
	}
	fclose(in);
	int status;
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status) || lines < CHECKS_PER_CASE)
		ok(0, "%s: child died (%s %d) after %d checks: a read outside the image?", label,
		   WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status)
		   : WEXITSTATUS(status), lines);
}

enum { GUARD_FAULT = 42 };
/* The arch table's compile-time hashes (arch.h's ARCH_SYM) are the names' own. */
static void check_arch_symbol_hashes(void)
{
	int entries = 0, wrong = 0;
	for (int i = 0; i < SYM_COUNT; i++) {
		const struct arch_symbol *a = &vdsokit_lib_arch_symbols[i];
		if (!a->name)
			continue;
		entries++;
		if (a->gnu_hash != vdsokit_gnu_hash(a->name)) {
			wrong++;
			diag("%s: table hash %#x, vdsokit_gnu_hash %#x", a->name, a->gnu_hash,
			     vdsokit_gnu_hash(a->name));
		}
	}
	ok(wrong == 0, "%s: the %d symbol table entries carry their names' GNU hashes (%d wrong)",
	   vdsokit_arch_name(), entries, wrong);
}

static void on_guard_fault(int sig)
{
	(void)sig;
	_exit(GUARD_FAULT);
}

/* The guard page itself: a read one byte past an image must kill the reader. */
static void check_guard_page(void)
{
	static const unsigned char bytes[7] = "\177ELF..";
	pid_t pid = fork();
	if (pid == 0) {
		/* Our own handler: under ASan a SEGV would otherwise be its report. */
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_guard_fault;
		sigaction(SIGSEGV, &sa, NULL);
		const volatile unsigned char *data = behind_guard(bytes, sizeof(bytes));
		if (!data)
			_exit(3);
		_exit(data[sizeof(bytes) - 1] + data[sizeof(bytes)] ? 4 : 5);
	}
	int status;
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == GUARD_FAULT,
	   "a read one byte past an image behind the guard page faults");
}

static void write_case(const char *dir, FILE *list, const char *file, const unsigned char *bytes,
		       size_t size, int error)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	fprintf(list, "%s\t%d\t%s\n", file, error, vdsokit_image_strerror(error));
}

/* "DT_HASH nbucket 0" -> "dt-hash-nbucket-0" */
static void slug(char *to, size_t len, const char *from)
{
	size_t n = 0;
	for (; *from && n + 1 < len; from++) {
		char c = *from;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '-';
		if (c == '-' && (n == 0 || to[n - 1] == '-'))
			continue;
		to[n++] = c;
	}
	while (n && to[n - 1] == '-')
		n--;
	to[n] = '\0';
}

int main(int argc, char **argv)
{
	const char *write_dir = NULL;
	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		write_dir = argv[2];
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--write DIR]\n", argv[0]);
		return 2;
	}
	/* The synthetic images: VDSOKIT_IMAGES, else VDSOKIT_BUILD/images (make images). */
	const char *build = getenv("VDSOKIT_BUILD") ? getenv("VDSOKIT_BUILD") : "build";
	const char *images = getenv("VDSOKIT_IMAGES");
	char path[PATH_MAX];
	struct base bases[6];
	int nbases = 0;

	if (!write_dir) {
		check_guard_page();
		check_arch_symbol_hashes();
	}
	if (host_vdso(&bases[nbases]) == 0)
		nbases++;
	else if (!write_dir)
		skip("this process has no vDSO (valgrind, qemu-user): no host image to break");
	/* 32-bit big-endian, 64-bit big-endian (8-byte DT_HASH entries), and x86 of both classes. */
	static const char *const synthetic[][2] = {
		{ "ppc32", "ppc32" }, { "s390x", "s390x" }, { "i386", "i386" }, { "x86_64", "x86_64" },
	};
	for (size_t i = 0; i < sizeof(synthetic) / sizeof(synthetic[0]); i++) {
		if (images)
			snprintf(path, sizeof(path), "%s/%s/both.so", images, synthetic[i][1]);
		else
			snprintf(path, sizeof(path), "%s/images/%s/both.so", build, synthetic[i][1]);
		if (image_file(&bases[nbases], synthetic[i][0], path) == 0)
			nbases++;
		else if (!write_dir)
			skip("%s: not built (make images): no %s image to break", path, synthetic[i][0]);
	}

	FILE *list = NULL;
	if (write_dir) {
		mkdir(write_dir, 0755);
		snprintf(path, sizeof(path), "%s/cases.tsv", write_dir);
		list = fopen(path, "w");
		if (!list) {
			perror(path);
			return 2;
		}
	}

	for (int b = 0; b < nbases; b++) {
		struct base *base = &bases[b];
		struct vdsokit_image img;
		int err = vdsokit_image_parse(&img, base->bytes, base->size);
		if (!write_dir)
			diag("%s image: %zu bytes, %u-bit %s-endian, e_machine %u", base->name, base->size,
			     img.elf_class, img.big_endian ? "big" : "little", img.machine);
		if (!write_dir && !ok(err == 0, "%s image (%zu bytes) parses: %s", base->name, base->size,
				      vdsokit_image_strerror(err)))
			continue;
		if (err == 0 && is_host_arch(&img))
			base->host = 1;
		/* Another architecture's image, whole: parses, and the library refuses it. */
		if (!base->host && !write_dir) {
			char label[128];
			snprintf(label, sizeof(label), "%s image on this host", base->name);
			run_case(label, base->bytes, base->size, VDSOKIT_IMAGE_OK, VDSOKIT_IMAGE_WRONG_ARCH, base);
		}
		for (size_t m = 0; m < sizeof(mutations) / sizeof(mutations[0]); m++) {
			const struct mutation *mu = &mutations[m];
			char label[160];
			snprintf(label, sizeof(label), "%s: %s", base->name, mu->name);
			unsigned char *copy = malloc(base->size);
			memcpy(copy, base->bytes, base->size);
			struct elf e = { copy, base->size, copy[4] == 2, copy[5] == 2 };
			if (mu->apply(&e) == NOT_APPLICABLE) {
				if (!write_dir)
					skip("%s: the image has no such table", label);
				free(copy);
				continue;
			}
			int lib_error = mu->lib_error == LIB_SAME ? mu->parse_error : mu->lib_error;
			/*
			 * Any image but the host's is the wrong architecture: as soon
			 * as its ELF identification names another class or byte order
			 * (the library reads no further; a mutation may make it so),
			 * or once it parses.
			 */
			if (other_class_or_order(copy, e.size) || (!base->host && mu->parse_error == VDSOKIT_IMAGE_OK))
				lib_error = VDSOKIT_IMAGE_WRONG_ARCH;
			if (write_dir) {
				char file[200], name[128];
				slug(name, sizeof(name), mu->name);
				snprintf(file, sizeof(file), "%s-%02zu-%s.so", base->name, m, name);
				if (mu->parse_error != VDSOKIT_IMAGE_OK)
					write_case(write_dir, list, file, copy, e.size, mu->parse_error);
			} else {
				run_case(label, copy, e.size, mu->parse_error, lib_error, base);
			}
			free(copy);
		}
	}
	for (int b = 0; b < nbases; b++)
		free(bases[b].bytes);
	if (write_dir) {
		fclose(list);
		return 0;
	}
	return done_testing();
}
