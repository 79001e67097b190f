/* SPDX-License-Identifier: MIT */
/*
 * The version needs (DT_VERNEED) of a shared object, for inspect: which
 * version of which library each undefined symbol asks for, as readelf
 * shows them (free@GLIBC_2.2.5).  A vDSO has none, so libvdsokit's
 * parser does not read them; this reads them here from the bytes the
 * parser validated, through the public fields only (class, byte order,
 * data, size), with every offset, count and string checked against the
 * image: a malformed table is reported as such, never read past.
 */
#include <string.h>

#include "cli.h"
#include "vdsokit.h"
#include "images/images.h"

#define PT_LOAD_ 1
#define PT_DYNAMIC_ 2
#define DT_NULL_ 0
#define DT_STRTAB_ 5
#define DT_STRSZ_ 10
#define DT_VERNEED_ 0x6ffffffe
#define DT_VERNEEDNUM_ 0x6fffffff
#define VERNEED_SIZE 16     /* Elf32_Verneed and Elf64_Verneed alike */
#define VERNAUX_SIZE 16
#define MAX_PHDRS 256
#define MAX_DYNAMIC 4096

struct reader {
	const unsigned char *data;
	size_t size;
	bool big, wide;
};

static bool in_image(const struct reader *r, uint64_t offset, uint64_t length)
{
	return offset <= r->size && length <= r->size - offset;
}

static uint64_t get(const struct reader *r, uint64_t offset, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		unsigned shift = r->big ? 8 * (bytes - 1 - i) : 8 * i;
		v |= (uint64_t)r->data[offset + i] << shift;
	}
	return v;
}

/* Word of an Elf32/Elf64 structure: 4 or 8 bytes. */
static uint64_t word(const struct reader *r, uint64_t offset)
{
	return get(r, offset, r->wide ? 8 : 4);
}

/* A NUL-ended string at strtab + index inside the image and the table, or NULL. */
static const char *string_at(const struct reader *r, uint64_t strtab, uint64_t strsz,
			     uint64_t index)
{
	if (index >= strsz || !in_image(r, strtab, strsz))
		return NULL;
	const char *s = (const char *)r->data + strtab + index;
	return memchr(s, 0, strsz - index) ? s : NULL;
}

int image_verneed_read(const struct vdsokit_image *img, struct image_verneeds *out)
{
	struct reader r = { img->data, img->size, img->big_endian != 0, img->elf_class == 64 };
	memset(out, 0, sizeof(*out));
	if (!in_image(&r, 0, r.wide ? 64 : 52))
		return -1;
	uint64_t phoff = r.wide ? get(&r, 32, 8) : get(&r, 28, 4);
	unsigned phentsize = (unsigned)get(&r, r.wide ? 54 : 42, 2);
	unsigned phnum = (unsigned)get(&r, r.wide ? 56 : 44, 2);
	unsigned want = r.wide ? 56 : 32;
	if (phentsize < want || phnum > MAX_PHDRS || !in_image(&r, phoff, (uint64_t)phnum * phentsize))
		return -1;

	/* The dynamic section, and the loads that turn addresses into offsets. */
	uint64_t dyn_off = 0, dyn_size = 0, load_vaddr[MAX_PHDRS], load_off[MAX_PHDRS],
		 load_size[MAX_PHDRS];
	unsigned loads = 0;
	bool have_dynamic = false;
	for (unsigned i = 0; i < phnum; i++) {
		uint64_t ph = phoff + (uint64_t)i * phentsize;
		uint32_t type = (uint32_t)get(&r, ph, 4);
		uint64_t offset = r.wide ? get(&r, ph + 8, 8) : get(&r, ph + 4, 4);
		uint64_t vaddr = r.wide ? get(&r, ph + 16, 8) : get(&r, ph + 8, 4);
		uint64_t filesz = r.wide ? get(&r, ph + 32, 8) : get(&r, ph + 16, 4);
		if (type == PT_LOAD_) {
			load_vaddr[loads] = vaddr;
			load_off[loads] = offset;
			load_size[loads++] = filesz;
		} else if (type == PT_DYNAMIC_ && !have_dynamic) {
			have_dynamic = true;
			dyn_off = offset;
			dyn_size = filesz;
		}
	}
	if (!have_dynamic || !in_image(&r, dyn_off, dyn_size))
		return -1;

	unsigned entry = r.wide ? 16 : 8;
	uint64_t strtab_addr = 0, strsz = 0, verneed_addr = 0, verneednum = 0;
	bool have_strtab = false;
	for (uint64_t k = 0; k < dyn_size / entry && k < MAX_DYNAMIC; k++) {
		uint64_t tag = word(&r, dyn_off + k * entry);
		uint64_t value = word(&r, dyn_off + k * entry + entry / 2);
		if (tag == DT_NULL_)
			break;
		switch (tag) {
		case DT_STRTAB_: strtab_addr = value; have_strtab = true; break;
		case DT_STRSZ_: strsz = value; break;
		case DT_VERNEED_: verneed_addr = value; out->present = true; break;
		case DT_VERNEEDNUM_: verneednum = value; break;
		}
	}
	if (!out->present)
		return 0;
	if (!have_strtab)
		return -1;

	/* Address to file offset, through the load that holds it. */
	uint64_t strtab = UINT64_MAX, verneed = UINT64_MAX;
	for (unsigned i = 0; i < loads; i++) {
		if (strtab_addr >= load_vaddr[i] && strtab_addr - load_vaddr[i] < load_size[i])
			strtab = strtab_addr - load_vaddr[i] + load_off[i];
		if (verneed_addr >= load_vaddr[i] && verneed_addr - load_vaddr[i] < load_size[i])
			verneed = verneed_addr - load_vaddr[i] + load_off[i];
	}
	if (strtab == UINT64_MAX || verneed == UINT64_MAX || !in_image(&r, strtab, strsz))
		return -1;

	/* vn_next and vna_next chain the entries: at most verneednum files, and a bounded walk. */
	uint64_t at = verneed;
	unsigned steps = 0;
	for (uint64_t f = 0; f < verneednum; f++) {
		if (!in_image(&r, at, VERNEED_SIZE))
			return -1;
		unsigned count = (unsigned)get(&r, at + 2, 2);
		const char *file = string_at(&r, strtab, strsz, get(&r, at + 4, 4));
		uint64_t aux = at + get(&r, at + 8, 4);
		uint32_t next = (uint32_t)get(&r, at + 12, 4);
		if (!file)
			return -1;
		out->files++;
		for (unsigned a = 0; a < count; a++) {
			if (++steps > IMAGE_VERNEED_MAX * 4 || !in_image(&r, aux, VERNAUX_SIZE))
				return -1;
			const char *name = string_at(&r, strtab, strsz, get(&r, aux + 8, 4));
			if (!name)
				return -1;
			if (out->count < IMAGE_VERNEED_MAX) {
				struct image_verneed *v = &out->items[out->count++];
				v->hash = (uint32_t)get(&r, aux, 4);
				v->flags = (unsigned)get(&r, aux + 4, 2);
				v->index = (unsigned)get(&r, aux + 6, 2);
				v->name = name;
				v->file = file;
			} else {
				out->dropped++;
			}
			uint32_t aux_next = (uint32_t)get(&r, aux + 12, 4);
			if (aux_next == 0)
				break;
			aux += aux_next;
		}
		if (next == 0)
			break;
		at += next;
	}
	return 0;
}

const struct image_verneed *image_verneed_find(const struct image_verneeds *v, int index)
{
	for (unsigned i = 0; i < v->count; i++)
		if ((int)v->items[i].index == index)
			return &v->items[i];
	return NULL;
}
