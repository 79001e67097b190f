/* SPDX-License-Identifier: MIT */
/*
 * The images layer: vDSO images read from files, for inspect and for
 * --image (a file mapped and handed to the library instead of the
 * process's vDSO), and their inventory in readelf's words.
 */
#ifndef VDSOKIT_CLI_IMAGES_H
#define VDSOKIT_CLI_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vdsokit.h"

struct json_writer;

/* ---------------------------------------------------------------------- */
/* Image inventory (image_print.c), shared by info and inspect             */
/* ---------------------------------------------------------------------- */

/*
 * The version needs (DT_VERNEED) of an image (verneed.c): what libvdsokit's
 * parser leaves out, since a vDSO needs no other library, read with the
 * same bounds checks for inspect of any shared object.
 */
#define IMAGE_VERNEED_MAX 512
struct image_verneed {
	unsigned index;            /* vna_other: the versym index that names it */
	unsigned flags;            /* vna_flags                                 */
	uint32_t hash;             /* vna_hash                                  */
	const char *name;          /* GLIBC_2.2.5                               */
	const char *file;          /* vn_file: libc.so.6                        */
};
struct image_verneeds {
	bool present;              /* DT_VERNEED is there                       */
	unsigned files, count, dropped; /* dropped: past IMAGE_VERNEED_MAX     */
	struct image_verneed items[IMAGE_VERNEED_MAX];
};
/* 0 (present false when none), or -1 when the table is malformed. */
int image_verneed_read(const struct vdsokit_image *img, struct image_verneeds *out);
const struct image_verneed *image_verneed_find(const struct image_verneeds *v, int index);

/*
 * ELF header facts, build-id, hash tables, version definitions and needs,
 * and every dynamic symbol, in readelf's words (FUNC, GLOBAL, UND,
 * name@@VERSION, and name@VERSION for a version needed from a library).
 */
void image_print_text(FILE *out, const struct vdsokit_image *img);
/* The same as members ("elf", "build_id", "hash_tables", …) of the open object. */
void image_print_json(struct json_writer *w, const struct vdsokit_image *img);
/*
 * Where an ELF file's PT_LOAD segments end (the largest p_offset + p_filesz),
 * read from its own headers (image_file.c); false when the headers cannot
 * be read or there is no PT_LOAD.
 */
bool image_load_span(const unsigned char *data, size_t size, uint64_t *span);

/*
 * The one way an image file is read (--image, inspect FILE): opened without
 * blocking (a FIFO would wait for a writer forever), a regular file only,
 * of at most max_size bytes (a vDSO is a few pages: a huge file is read in
 * no time only to be refused), read whole into *data (malloc'd, one byte
 * more, NUL) of *size bytes.  0, or CLI_EXIT_USAGE after the error naming
 * the file and the reason.
 */
int image_file_read(const char *cmd, const char *path, size_t max_size,
		    unsigned char **data, size_t *size);
/* --image's limit: far above any vDSO, far below what costs time to read. */
#define IMAGE_OPTION_MAX_SIZE ((size_t)64 << 20)

/*
 * Test aid (verify/abi --image FILE): map an image file executable and hand
 * it to the library instead of the process's vDSO, so that the checks can
 * be shown to fail on a vDSO known to be wrong (the synthetic images of
 * tests/images return fixed values).  An image that cannot run from a file
 * (truncated, or reading data pages the file lacks: image_file.c) is
 * refused.  0, or CLI_EXIT_USAGE after the error.
 */
int use_image_file(const char *cmd, const char *path);
/* The --image file use_image_file() took, or NULL: every report from it names it. */
const char *cli_image_path(void);
/*
 * vdsokit_reason_text(), but of the --image file where the library's text
 * speaks of this kernel's vDSO: with --image it is the file that lacks a
 * symbol, not the kernel.
 */
const char *cli_reason_text(enum vdsokit_reason reason);

#endif /* VDSOKIT_CLI_IMAGES_H */
