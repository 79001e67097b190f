/* SPDX-License-Identifier: MIT */
/* Internal interface of the image parser: its build for this ABI alone (src/image_own.c). */
#ifndef VDSOKIT_IMAGE_H
#define VDSOKIT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

struct vdsokit_image;
struct vdsokit_symbol;
struct vdsokit_verdef;

/*
 * The library's own reading of the process's image, or of the one given to
 * vdsokit_use_image (src/image_own.c): the public parser's code, for this
 * ABI's class and byte order alone.  An image of another is
 * VDSOKIT_IMAGE_WRONG_ARCH; the lookups are given images these functions
 * parsed.
 */

/*
 * The size of the image whose first avail bytes are at data: the end of
 * its furthest PT_LOAD in the file.  Reads only the ELF and program
 * headers, which must lie inside avail; scratch is the caller's (it is
 * overwritten), so that a first call does not hold two images on its
 * stack.  0, or a positive vdsokit_image_error.
 */
int vdsokit_lib_image_extent(struct vdsokit_image *scratch, const void *data, size_t avail, size_t *extent);

/* vdsokit_image_parse(), for those images. */
int vdsokit_lib_image_parse(struct vdsokit_image *img, const void *data, size_t size);

/*
 * vdsokit_image_lookup() in two steps, for a caller looking up several
 * names of one version: the version's definition (0, or -1 when the image
 * defines none of that name), then each name in it (version NULL: any),
 * given with its vdsokit_gnu_hash().
 */
int vdsokit_lib_image_find_version(const struct vdsokit_image *img, const char *version,
				struct vdsokit_verdef *def);
int vdsokit_lib_image_lookup_in(const struct vdsokit_image *img, const char *name, uint32_t name_gnu_hash,
			     const struct vdsokit_verdef *version, struct vdsokit_symbol *sym);

/* Whether a resolved symbol lies inside an executable segment. */
int vdsokit_lib_image_symbol_is_callable(const struct vdsokit_image *img, const struct vdsokit_symbol *sym);

#endif
