// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the image parser and everything that reads a parsed
 * image: parse, walk every symbol and version definition, look up every
 * name the library knows (with every version node, and with none), look up
 * each symbol's own name, and hash every string the image yields.  The
 * library's own reading (src/image_own.c, the parser built for this ABI's
 * class and byte order) must agree with it on every input: the same error
 * and the same parsed image and symbols, or, for an image identified as
 * of another class or byte order, VDSOKIT_IMAGE_WRONG_ARCH.  An image with
 * both hash tables is looked up through each.  tests/hardening/
 * parsers_agree.c runs this on every architecture, without libFuzzer.
 *
 * The input buffer is the image: libFuzzer hands it over in a heap block of
 * exactly that size, so ASan reports any byte read past the end, and UBSan
 * any overflowing shift or misaligned access in the readers.  Built with
 * clang -fsanitize=fuzzer,address,undefined by fuzz/fuzz.mk.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vdsokit.h"
#include "arch.h"
#include "image.h"
#include "names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keeps the compiler from dropping reads whose results nothing else uses. */
static volatile uint64_t sink;

static void touch_string(const char *s)
{
	if (!s)
		return;
	sink += strlen(s);
	sink += vdsokit_elf_hash(s) ^ vdsokit_gnu_hash(s);
}

static void touch_symbol(const struct vdsokit_image *img, const struct vdsokit_symbol *sym)
{
	touch_string(sym->name);
	touch_string(sym->version);
	sink += sym->value + sym->size + sym->offset + (uint64_t)sym->version_index;
	sink += vdsokit_lib_image_symbol_is_callable(img, sym);
	/* A symbol's address is inside the image: read the byte it points at. */
	if (sym->address)
		sink += *(const unsigned char *)sym->address;
}

/*
 * The library's two-step lookup of name (version: NULL, any) in an image
 * its own parse read: the public lookup's answer, as vdso.c asks for it.
 */
static int own_lookup(const struct vdsokit_image *img, const char *name, const char *version,
		      struct vdsokit_symbol *sym)
{
	struct vdsokit_verdef def;
	const struct vdsokit_verdef *in = NULL;
	if (version && (img->flags & VDSOKIT_IMAGE_HAS_VERSYM)) {
		if (vdsokit_lib_image_find_version(img, version, &def))
			return -ENOENT;
		in = &def;
	}
	return vdsokit_lib_image_lookup_in(img, name, vdsokit_gnu_hash(name), in, sym);
}

/* Both lookups of name in img (own: the same image as the library's own parse read it, or NULL). */
static void lookup_both(const struct vdsokit_image *img, const struct vdsokit_image *own, const char *name,
			const char *version)
{
	struct vdsokit_symbol sym, own_sym;
	memset(&sym, 0, sizeof(sym));
	memset(&own_sym, 0, sizeof(own_sym));
	int err = vdsokit_image_lookup(img, name, version, &sym);
	if (err == 0)
		touch_symbol(img, &sym);
	if (own && (own_lookup(own, name, version, &own_sym) != err ||
		    (err == 0 && memcmp(&sym, &own_sym, sizeof(sym)) != 0)))
		__builtin_trap();
}

static void lookup_everything(const struct vdsokit_image *img, const struct vdsokit_image *own)
{
	for (size_t n = 0; n < FUZZ_COUNT(fuzz_symbol_names); n++) {
		lookup_both(img, own, fuzz_symbol_names[n], NULL);
		for (size_t v = 0; v < FUZZ_COUNT(fuzz_version_names); v++)
			lookup_both(img, own, fuzz_symbol_names[n], fuzz_version_names[v]);
	}
	/* A NULL result pointer is allowed. */
	sink += (uint64_t)vdsokit_image_lookup(img, "__vdso_clock_gettime", NULL, NULL);
}

/*
 * An image with both tables is read through DT_GNU_HASH; its DT_HASH
 * lookups (what an image without DT_GNU_HASH gets) run too, on copies
 * told they have no DT_GNU_HASH: every name, unversioned and in each
 * version the image defines.
 */
static void lookup_sysv_too(const struct vdsokit_image *img, const struct vdsokit_image *own)
{
	const unsigned both = VDSOKIT_IMAGE_HAS_GNU_HASH | VDSOKIT_IMAGE_HAS_SYSV_HASH;
	if ((img->flags & both) != both)
		return;
	struct vdsokit_image sysv = *img, own_sysv;
	sysv.flags &= ~(unsigned)VDSOKIT_IMAGE_HAS_GNU_HASH;
	if (own) {
		own_sysv = *own;
		own_sysv.flags &= ~(unsigned)VDSOKIT_IMAGE_HAS_GNU_HASH;
	}
	struct vdsokit_verdef def;
	for (size_t n = 0; n < FUZZ_COUNT(fuzz_symbol_names); n++) {
		lookup_both(&sysv, own ? &own_sysv : NULL, fuzz_symbol_names[n], NULL);
		for (uint32_t v = 0; v < img->verdef_count; v++)
			if (vdsokit_image_verdef(img, v, &def) == 0 && def.name && !(def.flags & 1 /* the base */))
				lookup_both(&sysv, own ? &own_sysv : NULL, fuzz_symbol_names[n], def.name);
	}
}

static void walk_symbols(const struct vdsokit_image *img)
{
	struct vdsokit_symbol sym, found;
	/* One past the end must be refused, not read. */
	sink += (uint64_t)vdsokit_image_symbol(img, img->symbol_count, &sym);
	for (uint32_t i = 0; i < img->symbol_count; i++) {
		if (vdsokit_image_symbol(img, i, &sym) != 0)
			continue;
		touch_symbol(img, &sym);
		/* Every named symbol, looked up by its own name and version. */
		if (sym.name && sym.name[0]) {
			if (vdsokit_image_lookup(img, sym.name, sym.version, &found) == 0)
				touch_symbol(img, &found);
			if (vdsokit_image_lookup(img, sym.name, NULL, &found) == 0)
				touch_symbol(img, &found);
		}
	}
}

static void walk_versions(const struct vdsokit_image *img)
{
	struct vdsokit_verdef def;
	sink += (uint64_t)vdsokit_image_verdef(img, img->verdef_count, &def);
	for (uint32_t i = 0; i < img->verdef_count; i++) {
		if (vdsokit_image_verdef(img, i, &def) != 0)
			continue;
		touch_string(def.name);
		touch_string(def.parent);
		sink += def.index + def.flags + def.hash + def.aux_count;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vdsokit_image img;
	size_t extent = 0;

	/* The reader the library applies to AT_SYSINFO_EHDR's first page. */
	if (vdsokit_lib_image_extent(&img, data, size, &extent) == 0)
		sink += extent;

	int err = vdsokit_image_parse(&img, data, size);
	sink += strlen(vdsokit_image_strerror(err));
	struct vdsokit_image own;
	int own_err = vdsokit_lib_image_parse(&own, data, size);
	/* Identified (the class is set from then on) as of another class or byte order: refused there. */
	int other_abi = img.elf_class && (img.elf_class != ARCH_ELF_CLASS || img.big_endian != ARCH_BIG_ENDIAN);
	if (other_abi ? own_err != VDSOKIT_IMAGE_WRONG_ARCH
		      : own_err != err || memcmp(&img, &own, sizeof(img)) != 0)
		__builtin_trap();
	touch_string(vdsokit_machine_name(img.machine, img.elf_class));
	if (err) {
		/* A rejected image is left empty: every reader must refuse it. */
		struct vdsokit_symbol sym;
		struct vdsokit_verdef def;
		if (vdsokit_image_lookup(&img, "__vdso_clock_gettime", NULL, &sym) != -EINVAL ||
		    vdsokit_image_symbol(&img, 0, &sym) != -EINVAL || vdsokit_image_verdef(&img, 0, &def) != -EINVAL)
			__builtin_trap();
		return 0;
	}
	if (img.build_id)
		for (size_t i = 0; i < img.build_id_size; i++)
			sink += img.build_id[i];
	walk_versions(&img);
	walk_symbols(&img);
	lookup_everything(&img, other_abi ? NULL : &own);
	lookup_sysv_too(&img, other_abi ? NULL : &own);
	return 0;
}
