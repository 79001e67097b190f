// SPDX-License-Identifier: MIT
/*
 * The ELF image parser: one source for every vDSO, the running process's or
 * a file of another architecture.  Every offset, count, index and string is
 * checked against the image size before it is read, so a hostile image
 * yields an error code, never a read outside [data, data + size).
 *
 * Compiled twice.  As itself it is the public parser (include/vdsokit.h),
 * which takes the class and byte order from the header: any image.
 * src/image_own.c compiles it again as IMAGE_OWN_ABI, the library's own
 * reading of the process's image (src/image.h): class and byte order are
 * this ABI's, constants, an image of others is refused as soon as it is
 * identified, and each read is one plain load, every field's offset in
 * the layout a constant.  The same
 * checks run in both; the first call, which parses, runs fewer
 * instructions and branches.  The entry points of each are at the end.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "image.h"

/* ELF constants, spelled out so the parser needs no <elf.h> (freestanding). */
enum {
	ELFCLASS32 = 1, ELFCLASS64 = 2,
	ELFDATA2LSB = 1, ELFDATA2MSB = 2,
	EV_CURRENT = 1, ET_DYN = 3,
	PT_LOAD = 1, PT_DYNAMIC = 2, PT_NOTE = 4,
	PF_X = 1,
	DT_NULL = 0, DT_HASH = 4, DT_STRTAB = 5, DT_SYMTAB = 6, DT_STRSZ = 10,
	DT_SYMENT = 11,
	STN_UNDEF = 0, SHN_UNDEF = 0,
	STB_GLOBAL = 1, STB_WEAK = 2,
	STT_NOTYPE = 0, STT_FUNC = 2,
	VER_FLG_BASE = 1,
	NT_GNU_BUILD_ID = 3,
	EM_ALPHA = 0x9026, EM_S390 = 22,
};
#define DT_GNU_HASH   0x6ffffef5u
#define DT_VERSYM     0x6ffffff0u
#define DT_VERDEF     0x6ffffffcu
#define DT_VERDEFNUM  0x6ffffffdu

/* Bounds: true when [off, off + len) lies inside the image, overflow-safe. */
static int in_image(const struct vdsokit_image *img, uint64_t off, uint64_t len)
{
	return off <= img->size && len <= img->size - off;
}

/*
 * The image's class (32 or 64), and whether its byte order is not the one
 * we run in (ARCH_BIG_ENDIAN): an image of the same order (every process
 * image, most files) is read with plain loads, the others byte-swapped.
 * Unaligned-safe: memcpy of a constant size is one load.
 */
static unsigned image_class(const struct vdsokit_image *img)
{
#ifdef IMAGE_OWN_ABI
	(void)img;
	return ARCH_ELF_CLASS;
#else
	return img->elf_class;
#endif
}

static int image_swapped(const struct vdsokit_image *img)
{
#ifdef IMAGE_OWN_ABI
	(void)img;
	return 0;
#else
	return img->big_endian != ARCH_BIG_ENDIAN;
#endif
}

static uint16_t rd16(const struct vdsokit_image *img, size_t off)
{
	uint16_t v;
	__builtin_memcpy(&v, img->data + off, sizeof(v));
	return image_swapped(img) ? __builtin_bswap16(v) : v;
}

static uint32_t rd32(const struct vdsokit_image *img, size_t off)
{
	uint32_t v;
	__builtin_memcpy(&v, img->data + off, sizeof(v));
	return image_swapped(img) ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct vdsokit_image *img, size_t off)
{
	uint64_t v;
	__builtin_memcpy(&v, img->data + off, sizeof(v));
	return image_swapped(img) ? __builtin_bswap64(v) : v;
}

/* A word of the image's class: Elf32_Addr/Off/Word or Elf64_Addr/Off/Xword. */
static uint64_t rdword(const struct vdsokit_image *img, size_t off)
{
	return image_class(img) == 64 ? rd64(img, off) : rd32(img, off);
}

/* Layout of the class-dependent structures the parser reads. */
struct elf_layout {
	unsigned ehdr_size, phdr_size, dyn_size, sym_size;
	/* Elf_Ehdr */
	unsigned e_phoff, e_flags, e_phentsize, e_phnum;
	/* Elf_Phdr */
	unsigned p_type, p_flags, p_offset, p_vaddr, p_filesz;
	/* Elf_Sym */
	unsigned st_name, st_value, st_size, st_info, st_other, st_shndx;
};

/* Designated: a field added to or removed from the struct cannot shift the others. */
static const struct elf_layout layout32 = {
	.ehdr_size = 52, .phdr_size = 32, .dyn_size = 8, .sym_size = 16,
	.e_phoff = 28, .e_flags = 36, .e_phentsize = 42, .e_phnum = 44,
	.p_type = 0, .p_flags = 24, .p_offset = 4, .p_vaddr = 8, .p_filesz = 16,
	.st_name = 0, .st_value = 4, .st_size = 8, .st_info = 12, .st_other = 13, .st_shndx = 14,
};

static const struct elf_layout layout64 = {
	.ehdr_size = 64, .phdr_size = 56, .dyn_size = 16, .sym_size = 24,
	.e_phoff = 32, .e_flags = 48, .e_phentsize = 54, .e_phnum = 56,
	.p_type = 0, .p_flags = 4, .p_offset = 8, .p_vaddr = 16, .p_filesz = 32,
	.st_name = 0, .st_value = 8, .st_size = 16, .st_info = 4, .st_other = 5, .st_shndx = 6,
};

static const struct elf_layout *layout_of(const struct vdsokit_image *img)
{
	return image_class(img) == 64 ? &layout64 : &layout32;
}

/*
 * A virtual address of the image as an offset into its bytes: the image
 * is laid out as its first PT_LOAD says (p_vaddr - p_offset is constant
 * over a vDSO, which has one load segment, or several mapped contiguously).
 */
static int vaddr_to_offset(const struct vdsokit_image *img, uint64_t vaddr, size_t *off)
{
	if (vaddr < img->load_vaddr || vaddr - img->load_vaddr >= img->size)
		return -1;
	*off = (size_t)(vaddr - img->load_vaddr);
	return 0;
}

/*
 * The string helpers below are the parser's own, not the libc's: the
 * library's first call runs them, and a first call through the PLT of a
 * lazily bound program would run the dynamic linker's symbol lookup (and
 * fault in its pages) before the vDSO's; vDSO names are a few bytes long.
 */
static int strings_equal(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/*
 * The string at strtab + index, or NULL when index is outside the table.
 * It ends inside the table: parse_dynamic() accepts only a table whose
 * last byte is a NUL, so no scan is needed here.
 */
static const char *string_at(const struct vdsokit_image *img, uint64_t index)
{
	if (index >= img->strsz)
		return NULL;
	return (const char *)img->data + img->strtab + index;
}

/* The parts of parse_image below, in the order it reaches them. */
static void find_build_id(struct vdsokit_image *img, size_t off, size_t len);
static int parse_sysv_hash(struct vdsokit_image *img, uint64_t vaddr);
static int parse_gnu_hash(struct vdsokit_image *img, uint64_t vaddr);
static int parse_verdefs(struct vdsokit_image *img, uint64_t declared);

static int parse_header(struct vdsokit_image *img)
{
	const unsigned char *d = img->data;
	if (img->size < 16)
		return VDSOKIT_IMAGE_TRUNCATED;
	if (d[0] != 0x7f || d[1] != 'E' || d[2] != 'L' || d[3] != 'F')
		return VDSOKIT_IMAGE_NOT_ELF;
	if (d[4] != ELFCLASS32 && d[4] != ELFCLASS64)
		return VDSOKIT_IMAGE_BAD_CLASS;
	if (d[5] != ELFDATA2LSB && d[5] != ELFDATA2MSB)
		return VDSOKIT_IMAGE_BAD_BYTE_ORDER;
	if (d[6] != EV_CURRENT)
		return VDSOKIT_IMAGE_BAD_VERSION;
	img->elf_class = d[4] == ELFCLASS64 ? 64 : 32;
	img->big_endian = d[5] == ELFDATA2MSB;
#ifdef IMAGE_OWN_ABI
	if (img->elf_class != ARCH_ELF_CLASS || img->big_endian != ARCH_BIG_ENDIAN)
		return VDSOKIT_IMAGE_WRONG_ARCH;
#endif

	const struct elf_layout *L = layout_of(img);
	if (img->size < L->ehdr_size)
		return VDSOKIT_IMAGE_TRUNCATED;
	if (rd16(img, 16) != ET_DYN)
		return VDSOKIT_IMAGE_NOT_SHARED;
	img->machine = rd16(img, 18);
	if (rd32(img, 20) != EV_CURRENT)
		return VDSOKIT_IMAGE_BAD_VERSION;
	img->e_flags = rd32(img, L->e_flags);
	img->hash_entry_size = 4;
	/* 64-bit s390 and alpha use 8-byte DT_HASH entries (their ABIs say so). */
	if (image_class(img) == 64 && (img->machine == EM_S390 || img->machine == EM_ALPHA))
		img->hash_entry_size = 8;
	return VDSOKIT_IMAGE_OK;
}

/*
 * The program header table of a parsed ELF header: where it starts and how
 * many entries, checked to be of this class's size and inside the image.
 */
static int program_header_table(const struct vdsokit_image *img, size_t *phoff, unsigned *phnum)
{
	const struct elf_layout *L = layout_of(img);
	uint64_t off = rdword(img, L->e_phoff);
	unsigned entsize = rd16(img, L->e_phentsize), n = rd16(img, L->e_phnum);
	if (entsize != L->phdr_size || n == 0 || !in_image(img, off, (uint64_t)n * entsize))
		return VDSOKIT_IMAGE_BAD_PHDR;
	*phoff = (size_t)off;
	*phnum = n;
	return VDSOKIT_IMAGE_OK;
}

/* Finds PT_LOAD, PT_DYNAMIC and the build-id note. */
static int parse_program_headers(struct vdsokit_image *img, size_t *dyn_off, size_t *dyn_size)
{
	const struct elf_layout *L = layout_of(img);
	size_t phoff;
	unsigned phnum;
	int have_load = 0, have_dynamic = 0;
	uint64_t dyn_filesz = 0;

	int err = program_header_table(img, &phoff, &phnum);
	if (err)
		return err;
	img->exec_lo = img->exec_hi = 0;
	for (unsigned i = 0; i < phnum; i++) {
		size_t ph = phoff + (size_t)i * L->phdr_size;
		uint32_t type = rd32(img, ph + L->p_type);
		uint64_t offset = rdword(img, ph + L->p_offset);
		uint64_t vaddr = rdword(img, ph + L->p_vaddr);
		uint64_t filesz = rdword(img, ph + L->p_filesz);

		if (type == PT_LOAD) {
			if (!have_load) {
				if (vaddr < offset)
					return VDSOKIT_IMAGE_BAD_PHDR;
				img->load_vaddr = vaddr - offset;
				have_load = 1;
			}
			/* Code we may jump to: inside the image and executable. */
			if ((rd32(img, ph + L->p_flags) & PF_X) && in_image(img, offset, filesz) &&
			    filesz && img->exec_hi == 0) {
				img->exec_lo = (size_t)offset;
				img->exec_hi = (size_t)(offset + filesz);
			}
		} else if (type == PT_DYNAMIC) {
			have_dynamic = 1;
			dyn_filesz = filesz;
			*dyn_off = (size_t)offset;
			if (!in_image(img, offset, filesz))
				return VDSOKIT_IMAGE_BAD_DYNAMIC;
		} else if (type == PT_NOTE && in_image(img, offset, filesz)) {
			find_build_id(img, (size_t)offset, (size_t)filesz);
		}
	}
	if (!have_load)
		return VDSOKIT_IMAGE_NO_LOAD;
	if (!have_dynamic)
		return VDSOKIT_IMAGE_NO_DYNAMIC;
	*dyn_size = (size_t)dyn_filesz;
	return VDSOKIT_IMAGE_OK;
}

static void find_build_id(struct vdsokit_image *img, size_t off, size_t len)
{
	size_t end = off + len;
	/* Each note: namesz, descsz, type, then name and desc padded to 4. */
	while (off + 12 <= end && !img->build_id) {
		uint32_t namesz = rd32(img, off), descsz = rd32(img, off + 4), type = rd32(img, off + 8);
		uint64_t name_off = off + 12;
		uint64_t desc_off = name_off + (((uint64_t)namesz + 3) & ~(uint64_t)3);
		uint64_t next = desc_off + (((uint64_t)descsz + 3) & ~(uint64_t)3);
		if (next > end)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(img->data + name_off, "GNU", 4) == 0 && descsz > 0) {
			img->build_id = img->data + desc_off;
			img->build_id_size = descsz;
		}
		off = (size_t)next;
	}
}

/* Reads the dynamic section; tables are stored as checked offsets. */
static int parse_dynamic(struct vdsokit_image *img, size_t dyn_off, size_t dyn_size)
{
	const struct elf_layout *L = layout_of(img);
	uint64_t strtab = 0, symtab = 0, strsz = 0, syment = 0, hash = 0, gnu_hash = 0;
	uint64_t versym = 0, verdef = 0, verdefnum = 0;
	int have_strtab = 0, have_symtab = 0;
	unsigned w = image_class(img) / 8;

	for (size_t d = dyn_off; d + L->dyn_size <= dyn_off + dyn_size; d += L->dyn_size) {
		uint64_t tag = rdword(img, d), val = rdword(img, d + w);
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_STRTAB: strtab = val; have_strtab = 1; break;
		case DT_SYMTAB: symtab = val; have_symtab = 1; break;
		case DT_STRSZ: strsz = val; break;
		case DT_SYMENT: syment = val; break;
		case DT_HASH: hash = val; img->flags |= VDSOKIT_IMAGE_HAS_SYSV_HASH; break;
		case DT_GNU_HASH: gnu_hash = val; img->flags |= VDSOKIT_IMAGE_HAS_GNU_HASH; break;
		case DT_VERSYM: versym = val; img->flags |= VDSOKIT_IMAGE_HAS_VERSYM; break;
		case DT_VERDEF: verdef = val; img->flags |= VDSOKIT_IMAGE_HAS_VERDEF; break;
		case DT_VERDEFNUM: verdefnum = val; break;
		default: break;
		}
	}

	size_t off;
	if (!have_strtab || vaddr_to_offset(img, strtab, &off) || !in_image(img, off, strsz) || strsz == 0)
		return VDSOKIT_IMAGE_BAD_STRTAB;
	/*
	 * A string table ends with a NUL (the ELF spec says so, and every
	 * linker writes one): then no string in it can run past its end.
	 */
	if (img->data[off + strsz - 1] != '\0')
		return VDSOKIT_IMAGE_BAD_STRTAB;
	img->strtab = off;
	img->strsz = (size_t)strsz;

	if (!have_symtab || syment != L->sym_size || vaddr_to_offset(img, symtab, &off))
		return VDSOKIT_IMAGE_BAD_SYMTAB;
	img->symtab = off;
	img->syment = (size_t)syment;

	if (!(img->flags & (VDSOKIT_IMAGE_HAS_SYSV_HASH | VDSOKIT_IMAGE_HAS_GNU_HASH)))
		return VDSOKIT_IMAGE_NO_HASH;
	if (img->flags & VDSOKIT_IMAGE_HAS_SYSV_HASH) {
		int err = parse_sysv_hash(img, hash);
		if (err)
			return err;
	}
	if (img->flags & VDSOKIT_IMAGE_HAS_GNU_HASH) {
		int err = parse_gnu_hash(img, gnu_hash);
		if (err)
			return err;
	}
	/* Every symbol index below symbol_count must be a readable entry. */
	if (!in_image(img, img->symtab, (uint64_t)img->symbol_count * img->syment))
		return VDSOKIT_IMAGE_BAD_SYMTAB;

	if (img->flags & VDSOKIT_IMAGE_HAS_VERSYM) {
		if (vaddr_to_offset(img, versym, &off) ||
		    !in_image(img, off, (uint64_t)img->symbol_count * 2))
			return VDSOKIT_IMAGE_BAD_VERSYM;
		img->versym = off;
	}
	if (img->flags & VDSOKIT_IMAGE_HAS_VERDEF) {
		if (vaddr_to_offset(img, verdef, &off))
			return VDSOKIT_IMAGE_BAD_VERDEF;
		img->verdef = off;
		return parse_verdefs(img, verdefnum);
	}
	return VDSOKIT_IMAGE_OK;
}

static int parse_image(struct vdsokit_image *img, const void *data, size_t size)
{
	size_t dyn_off = 0, dyn_size = 0;
	int err;

	memset(img, 0, sizeof(*img));
	if (!data)
		return VDSOKIT_IMAGE_TRUNCATED;
	img->data = data;
	img->size = size;
	err = parse_header(img);
	if (!err)
		err = parse_program_headers(img, &dyn_off, &dyn_size);
	if (!err)
		err = parse_dynamic(img, dyn_off, dyn_size);
	if (!err)
		img->version = VDSOKIT_IMAGE_VERSION;
	if (err) {
		/* Leave nothing a caller could mistake for a parsed image. */
		unsigned cls = img->elf_class, be = img->big_endian, mach = img->machine;
		memset(img, 0, sizeof(*img));
		img->elf_class = cls;
		img->big_endian = be;
		img->machine = mach;
	}
	return err;
}

/* ---- hash tables ------------------------------------------------------ */

static uint32_t elf_hash(const char *name)
{
	uint32_t h = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h = (h << 4) + *p;
		uint32_t top = h & 0xf0000000u;
		h ^= top >> 24;
		h &= ~top;
	}
	return h;
}

static uint64_t hash_word(const struct vdsokit_image *img, size_t index)
{
	size_t off = img->hash + index * img->hash_entry_size;
	return img->hash_entry_size == 8 ? rd64(img, off) : rd32(img, off);
}

static int parse_sysv_hash(struct vdsokit_image *img, uint64_t vaddr)
{
	size_t off;
	unsigned es = img->hash_entry_size;
	if (vaddr_to_offset(img, vaddr, &off) || !in_image(img, off, 2 * (uint64_t)es))
		return VDSOKIT_IMAGE_BAD_HASH;
	img->hash = off;
	uint64_t nbucket = hash_word(img, 0), nchain = hash_word(img, 1);
	if (nbucket == 0 || nbucket > UINT32_MAX || nchain > UINT32_MAX ||
	    !in_image(img, off, (2 + nbucket + nchain) * es))
		return VDSOKIT_IMAGE_BAD_HASH;
	img->hash_nbucket = (uint32_t)nbucket;
	img->hash_nchain = (uint32_t)nchain;
	/* nchain is, by definition, the number of dynamic symbols. */
	img->symbol_count = (uint32_t)nchain;
	return VDSOKIT_IMAGE_OK;
}

static uint32_t gnu_bucket(const struct vdsokit_image *img, uint32_t i)
{
	size_t words = (size_t)img->gnu_bloom_size * (image_class(img) / 8);
	return rd32(img, img->gnu_hash + 16 + words + (size_t)i * 4);
}

/* Offset of the chain word of symbol index sym (>= gnu_symoffset), or 0. */
static size_t gnu_chain_offset(const struct vdsokit_image *img, uint32_t sym)
{
	size_t words = (size_t)img->gnu_bloom_size * (image_class(img) / 8);
	uint64_t off = (uint64_t)img->gnu_hash + 16 + words + (uint64_t)img->gnu_nbucket * 4 +
		       (uint64_t)(sym - img->gnu_symoffset) * 4;
	return in_image(img, off, 4) ? (size_t)off : 0;
}

static int parse_gnu_hash(struct vdsokit_image *img, uint64_t vaddr)
{
	size_t off;
	if (vaddr_to_offset(img, vaddr, &off) || !in_image(img, off, 16))
		return VDSOKIT_IMAGE_BAD_GNU_HASH;
	img->gnu_hash = off;
	img->gnu_nbucket = rd32(img, off);
	img->gnu_symoffset = rd32(img, off + 4);
	img->gnu_bloom_size = rd32(img, off + 8);
	img->gnu_bloom_shift = rd32(img, off + 12);
	uint64_t bloom_bytes = (uint64_t)img->gnu_bloom_size * (image_class(img) / 8);
	if (img->gnu_nbucket == 0 || img->gnu_bloom_size == 0 ||
	    (img->gnu_bloom_size & (img->gnu_bloom_size - 1)) ||
	    !in_image(img, off, 16 + bloom_bytes + (uint64_t)img->gnu_nbucket * 4))
		return VDSOKIT_IMAGE_BAD_GNU_HASH;

	/*
	 * The symbol count is not stored: it is one past the last symbol of the
	 * longest chain, found from the highest bucket start.  Every chain
	 * word must be readable; a chain without an end bit is an error.
	 */
	uint32_t last = 0;
	for (uint32_t b = 0; b < img->gnu_nbucket; b++) {
		uint32_t start = gnu_bucket(img, b);
		if (start && start < img->gnu_symoffset)
			return VDSOKIT_IMAGE_BAD_GNU_HASH;
		if (start > last)
			last = start;
	}
	uint32_t count = img->gnu_symoffset;
	if (last) {
		uint32_t i = last;
		for (;;) {
			size_t c = gnu_chain_offset(img, i);
			if (!c || i == UINT32_MAX)
				return VDSOKIT_IMAGE_BAD_GNU_HASH;
			if (rd32(img, c) & 1)
				break;
			i++;
		}
		count = i + 1;
	}
	if (img->flags & VDSOKIT_IMAGE_HAS_SYSV_HASH) {
		/* Both tables describe the same symbols; nchain is authoritative. */
		if (count > img->symbol_count)
			return VDSOKIT_IMAGE_BAD_GNU_HASH;
	} else {
		img->symbol_count = count;
	}
	return VDSOKIT_IMAGE_OK;
}

/* ---- versions --------------------------------------------------------- */

/* Elf_Verdef and Elf_Verdaux are the same for both classes. */
enum { VD_SIZE = 20, VDA_SIZE = 8 };

static int parse_verdefs(struct vdsokit_image *img, uint64_t declared)
{
	uint64_t off = img->verdef;
	uint32_t n = 0;
	/*
	 * Walk the chain once, checking every entry and its first aux; a
	 * chain longer than the image could hold entries is a loop.
	 */
	for (;;) {
		if (!in_image(img, off, VD_SIZE) || n >= img->size / VD_SIZE)
			return VDSOKIT_IMAGE_BAD_VERDEF;
		uint32_t aux = rd32(img, off + 12), next = rd32(img, off + 16);
		if (rd16(img, off + 6) > 0 &&
		    (!in_image(img, off + aux, VDA_SIZE) ||
		     !string_at(img, rd32(img, off + aux))))
			return VDSOKIT_IMAGE_BAD_VERDEF;
		n++;
		if (next == 0)
			break;
		if (next < VD_SIZE)   /* backwards or overlapping: a loop */
			return VDSOKIT_IMAGE_BAD_VERDEF;
		off += next;
	}
	if (declared && declared != n)
		return VDSOKIT_IMAGE_BAD_VERDEF;
	img->verdef_count = n;
	return VDSOKIT_IMAGE_OK;
}

/* Decodes the (checked) version definition at offset off. */
static int verdef_at(const struct vdsokit_image *img, size_t off, struct vdsokit_verdef *def)
{
	memset(def, 0, sizeof(*def));
	def->struct_version = VDSOKIT_VERDEF_VERSION;
	def->flags = rd16(img, off + 2);
	def->index = rd16(img, off + 4);
	def->aux_count = rd16(img, off + 6);
	def->hash = rd32(img, off + 8);
	if (def->aux_count > 0) {
		size_t aux = off + rd32(img, off + 12);
		def->name = string_at(img, rd32(img, aux));
		uint32_t next = rd32(img, aux + 4);
		if (def->aux_count > 1 && next && in_image(img, (uint64_t)aux + next, VDA_SIZE))
			def->parent = string_at(img, rd32(img, aux + next));
	}
	return 0;
}

/* The version definition with index ndx (not the base), or -1: one walk of the chain. */
static int find_verdef(const struct vdsokit_image *img, unsigned ndx, struct vdsokit_verdef *def)
{
	size_t off = img->verdef;
	for (uint32_t i = 0; (img->flags & VDSOKIT_IMAGE_HAS_VERDEF) && i < img->verdef_count; i++) {
		/* The chain was checked whole by parse_verdefs. */
		if (rd16(img, off + 4) == ndx && !(rd16(img, off + 2) & VER_FLG_BASE))
			return verdef_at(img, off, def);
		off += rd32(img, off + 16);
	}
	return -1;
}

/* ---- symbols ---------------------------------------------------------- */

/* Decodes symbol i (< symbol_count), all but the name of its version. */
static int decode_symbol(const struct vdsokit_image *img, uint32_t i, struct vdsokit_symbol *sym)
{
	const struct elf_layout *L = layout_of(img);
	size_t s = img->symtab + (size_t)i * img->syment;
	unsigned char info = img->data[s + L->st_info];

	memset(sym, 0, sizeof(*sym));
	sym->struct_version = VDSOKIT_SYMBOL_VERSION;
	sym->name = string_at(img, rd32(img, s + L->st_name));
	if (!sym->name)
		return -ENOEXEC;
	sym->value = rdword(img, s + L->st_value);
	sym->size = rdword(img, s + L->st_size);
	sym->type = info & 0xf;
	sym->bind = info >> 4;
	sym->visibility = img->data[s + L->st_other] & 3;
	sym->shndx = rd16(img, s + L->st_shndx);
	sym->version_index = -1;
	if (img->flags & VDSOKIT_IMAGE_HAS_VERSYM) {
		uint16_t vs = rd16(img, img->versym + (size_t)i * 2);
		sym->version_index = vs & 0x7fff;
		sym->version_hidden = !!(vs & 0x8000);
	}
	size_t off;
	if (sym->shndx != SHN_UNDEF && vaddr_to_offset(img, sym->value, &off) == 0) {
		sym->offset = off;
		sym->address = img->data + off;
	}
	return 0;
}

/* Sets sym->version from its version index: the definition's name, if any. */
static void name_symbol_version(const struct vdsokit_image *img, struct vdsokit_symbol *sym)
{
	struct vdsokit_verdef def;
	if (sym->version_index > 1 && find_verdef(img, (unsigned)sym->version_index, &def) == 0)
		sym->version = def.name;
}

static int find_version(const struct vdsokit_image *img, const char *version, struct vdsokit_verdef *def)
{
	if (!(img->flags & VDSOKIT_IMAGE_HAS_VERDEF))
		return -1;
	uint32_t hash = elf_hash(version);
	size_t off = img->verdef;
	for (uint32_t i = 0; i < img->verdef_count; i++) {
		/* The chain was checked whole by parse_verdefs. */
		if (!(rd16(img, off + 2) & VER_FLG_BASE) && rd32(img, off + 8) == hash) {
			verdef_at(img, off, def);
			/* The definition's hash must agree with its name, as the loader checks. */
			if (def->name && strings_equal(def->name, version))
				return 0;
		}
		off += rd32(img, off + 16);
	}
	return -1;
}

/*
 * Whether symbol i is a defined function called name, of the version
 * defined by *version (NULL: of any).  The name is compared first,
 * straight from the symbol table, so the chain's other entries cost one
 * string compare each; the version is an index compare.
 */
static int symbol_matches(const struct vdsokit_image *img, uint32_t i, const char *name,
			  const struct vdsokit_verdef *version, struct vdsokit_symbol *sym)
{
	const struct elf_layout *L = layout_of(img);
	size_t s = img->symtab + (size_t)i * img->syment;
	const char *sym_name = string_at(img, rd32(img, s + L->st_name));
	if (!sym_name || !strings_equal(sym_name, name))
		return 0;
	if (decode_symbol(img, i, sym))
		return 0;
	if (sym->type != STT_FUNC && sym->type != STT_NOTYPE)
		return 0;
	if (sym->bind != STB_GLOBAL && sym->bind != STB_WEAK)
		return 0;
	if (sym->shndx == SHN_UNDEF || !sym->address)
		return 0;
	if (!version) {
		name_symbol_version(img, sym);
		return 1;
	}
	if (sym->version_index != (int)version->index)
		return 0;
	sym->version = version->name;
	return 1;
}

static int lookup_sysv(const struct vdsokit_image *img, const char *name,
		       const struct vdsokit_verdef *version, struct vdsokit_symbol *sym)
{
	uint64_t i = hash_word(img, 2 + elf_hash(name) % img->hash_nbucket);
	/* At most nchain steps: a cyclic chain ends here instead of spinning. */
	for (uint32_t steps = 0; i != STN_UNDEF && steps <= img->hash_nchain; steps++) {
		if (i >= img->hash_nchain)
			return -ENOEXEC;
		if (symbol_matches(img, (uint32_t)i, name, version, sym))
			return 0;
		i = hash_word(img, 2 + img->hash_nbucket + (size_t)i);
	}
	return -ENOENT;
}

static int lookup_gnu(const struct vdsokit_image *img, const char *name, uint32_t h,
		      const struct vdsokit_verdef *version, struct vdsokit_symbol *sym)
{
	unsigned bits = image_class(img);
	size_t word_off = img->gnu_hash + 16 + (size_t)((h / bits) & (img->gnu_bloom_size - 1)) * (bits / 8);
	uint64_t word = rdword(img, word_off);
	uint64_t mask = (uint64_t)1 << (h % bits) | (uint64_t)1 << ((h >> (img->gnu_bloom_shift & 31)) % bits);
	if ((word & mask) != mask)
		return -ENOENT;

	uint32_t i = gnu_bucket(img, h % img->gnu_nbucket);
	if (i == 0)
		return -ENOENT;
	for (; i < img->symbol_count; i++) {
		size_t c = gnu_chain_offset(img, i);
		if (!c)
			return -ENOEXEC;
		uint32_t ch = rd32(img, c);
		if ((ch | 1) == (h | 1) && symbol_matches(img, i, name, version, sym))
			return 0;
		if (ch & 1)
			break;
	}
	return -ENOENT;
}

static int lookup_in(const struct vdsokit_image *img, const char *name, uint32_t name_gnu_hash,
		     const struct vdsokit_verdef *version, struct vdsokit_symbol *sym)
{
	/* GNU hash has a bloom filter: faster misses.  Either gives the same answer. */
	if (img->flags & VDSOKIT_IMAGE_HAS_GNU_HASH)
		return lookup_gnu(img, name, name_gnu_hash, version, sym);
	return lookup_sysv(img, name, version, sym);
}

/* ---- entry points: the library's own (src/image.h), or the public ones -- */

#ifdef IMAGE_OWN_ABI
int vdsokit_lib_image_extent(struct vdsokit_image *scratch, const void *data, size_t avail, size_t *extent)
{
	struct vdsokit_image *img = scratch;
	memset(img, 0, sizeof(*img));
	img->data = data;
	img->size = avail;
	int err = parse_header(img);
	if (err)
		return err;
	const struct elf_layout *L = layout_of(img);
	size_t phoff;
	unsigned phnum;
	err = program_header_table(img, &phoff, &phnum);
	if (err)
		return err;
	uint64_t end = 0;
	for (unsigned i = 0; i < phnum; i++) {
		size_t ph = phoff + (size_t)i * L->phdr_size;
		if (rd32(img, ph + L->p_type) != PT_LOAD)
			continue;
		uint64_t offset = rdword(img, ph + L->p_offset);
		uint64_t filesz = rdword(img, ph + L->p_filesz);
		/* Checked without wrapping: offset + filesz must fit a size_t. */
		if (offset > SIZE_MAX || filesz > SIZE_MAX - offset)
			return VDSOKIT_IMAGE_BAD_PHDR;
		if (offset + filesz > end)
			end = offset + filesz;
	}
	if (end == 0)
		return VDSOKIT_IMAGE_NO_LOAD;
	*extent = (size_t)end;
	return VDSOKIT_IMAGE_OK;
}

int vdsokit_lib_image_parse(struct vdsokit_image *img, const void *data, size_t size)
{
	return parse_image(img, data, size);
}

int vdsokit_lib_image_find_version(const struct vdsokit_image *img, const char *version,
				   struct vdsokit_verdef *def)
{
	return find_version(img, version, def);
}

int vdsokit_lib_image_lookup_in(const struct vdsokit_image *img, const char *name, uint32_t name_gnu_hash,
				const struct vdsokit_verdef *version, struct vdsokit_symbol *sym)
{
	return lookup_in(img, name, name_gnu_hash, version, sym);
}

int vdsokit_lib_image_symbol_is_callable(const struct vdsokit_image *img, const struct vdsokit_symbol *sym)
{
	return sym->address && sym->offset >= img->exec_lo && sym->offset < img->exec_hi;
}
#else
VDSO_EXPORT int vdsokit_image_parse(struct vdsokit_image *img, const void *data, size_t size)
{
	return parse_image(img, data, size);
}

VDSO_EXPORT uint32_t vdsokit_elf_hash(const char *name)
{
	return elf_hash(name);
}

VDSO_EXPORT uint32_t vdsokit_gnu_hash(const char *name)
{
	uint32_t h = 5381;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = h * 33 + *p;
	return h;
}

VDSO_EXPORT int vdsokit_image_verdef(const struct vdsokit_image *img, uint32_t i, struct vdsokit_verdef *def)
{
	if (!(img->flags & VDSOKIT_IMAGE_HAS_VERDEF) || i >= img->verdef_count)
		return -EINVAL;
	size_t off = img->verdef;
	for (uint32_t k = 0; k < i; k++)
		off += rd32(img, off + 16);   /* checked by parse_verdefs */
	return verdef_at(img, off, def);
}

VDSO_EXPORT int vdsokit_image_symbol(const struct vdsokit_image *img, uint32_t i, struct vdsokit_symbol *sym)
{
	if (!img->data || i >= img->symbol_count)
		return -EINVAL;
	int err = decode_symbol(img, i, sym);
	if (!err)
		name_symbol_version(img, sym);
	return err;
}

VDSO_EXPORT int vdsokit_image_lookup(const struct vdsokit_image *img, const char *name, const char *version,
		      struct vdsokit_symbol *sym)
{
	struct vdsokit_symbol scratch;
	struct vdsokit_verdef def;
	if (!sym)
		sym = &scratch;
	if (!img->data || !name)
		return -EINVAL;
	/* Unversioned images match any version; a version they do not define, nothing. */
	uint32_t hash = vdsokit_gnu_hash(name);
	if (!version || !(img->flags & VDSOKIT_IMAGE_HAS_VERSYM))
		return lookup_in(img, name, hash, NULL, sym);
	if (find_version(img, version, &def))
		return -ENOENT;
	return lookup_in(img, name, hash, &def, sym);
}

VDSO_EXPORT const char *vdsokit_image_strerror(int error)
{
	static const char *const text[VDSOKIT_IMAGE_ERROR_COUNT] = {
		[VDSOKIT_IMAGE_OK] = "no error",
		[VDSOKIT_IMAGE_TRUNCATED] = "truncated ELF (smaller than its headers say)",
		[VDSOKIT_IMAGE_NOT_ELF] = "not an ELF file (bad magic)",
		[VDSOKIT_IMAGE_BAD_CLASS] = "unknown ELF class",
		[VDSOKIT_IMAGE_BAD_BYTE_ORDER] = "unknown ELF byte order",
		[VDSOKIT_IMAGE_BAD_VERSION] = "unknown ELF version",
		[VDSOKIT_IMAGE_NOT_SHARED] = "not a shared object (e_type is not ET_DYN)",
		[VDSOKIT_IMAGE_BAD_PHDR] = "program headers outside the file or of the wrong size",
		[VDSOKIT_IMAGE_NO_LOAD] = "no PT_LOAD segment",
		[VDSOKIT_IMAGE_NO_DYNAMIC] = "no PT_DYNAMIC segment",
		[VDSOKIT_IMAGE_BAD_DYNAMIC] = "dynamic section outside the file",
		[VDSOKIT_IMAGE_BAD_STRTAB] = "DT_STRTAB/DT_STRSZ missing or outside the file",
		[VDSOKIT_IMAGE_BAD_SYMTAB] = "DT_SYMTAB/DT_SYMENT missing, wrong or outside the file",
		[VDSOKIT_IMAGE_NO_HASH] = "neither DT_HASH nor DT_GNU_HASH",
		[VDSOKIT_IMAGE_BAD_HASH] = "DT_HASH table malformed or outside the file",
		[VDSOKIT_IMAGE_BAD_GNU_HASH] = "DT_GNU_HASH table malformed or outside the file",
		[VDSOKIT_IMAGE_BAD_VERSYM] = "DT_VERSYM table outside the file",
		[VDSOKIT_IMAGE_BAD_VERDEF] = "DT_VERDEF chain malformed, looping or outside the file",
		[VDSOKIT_IMAGE_WRONG_ARCH] = "ELF class, byte order or machine is not this process's",
		[VDSOKIT_IMAGE_TOO_LARGE] = "larger than any vDSO (process image)",
	};
	if (error < 0 || error >= VDSOKIT_IMAGE_ERROR_COUNT || !text[error])
		return "unknown error";
	return text[error];
}

VDSO_EXPORT const char *vdsokit_machine_name(unsigned machine, unsigned elf_class)
{
	switch (machine) {
	case 2: return "sparc";
	case 3: return "i386";
	case 4: return "m68k";
	case 8: return elf_class == 64 ? "mips64" : "mips";
	case 18: return "sparc32plus";
	case 20: return "ppc";
	case 21: return "ppc64";
	case 22: return elf_class == 64 ? "s390x" : "s390";
	case 40: return "arm";
	case 43: return "sparc64";
	case 62: return elf_class == 32 ? "x32" : "x86_64";
	case 183: return "aarch64";
	case 243: return elf_class == 64 ? "riscv64" : "riscv32";
	case 258: return elf_class == 64 ? "loongarch64" : "loongarch32";
	case 0x9026: return "alpha";
	default: return NULL;
	}
}
#endif /* IMAGE_OWN_ABI */
