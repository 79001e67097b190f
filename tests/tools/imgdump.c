/* SPDX-License-Identifier: MIT */
/*
 * imgdump: what libvdsokit's image parser sees in an ELF file, printed in
 * readelf's words so tests/image-readelf.t can compare the two line by line.
 *
 *   imgdump FILE            header, dynamic symbols, version definitions
 *   imgdump FILE --lookup   reads "NAME VERSION" lines ("-" for no version)
 *                           on stdin, prints "NAME VERSION found VALUE" or
 *                           "NAME VERSION absent" for each
 *   imgdump --elf-hash S…   this tool's own ELF hash of each string
 *
 * Output lines (values in readelf's spelling):
 *   header CLASS ENDIAN MACHINE HASH_ENTRY_SIZE FLAGS BUILD_ID
 *   count symbols N verdefs N
 *   sym NUM VALUE SIZE TYPE BIND VIS NDX NAME[@@VERSION|@VERSION]
 *   verdef INDEX FLAGS CNT NAME HASH_CHECK
 *   parent INDEX NAME
 * Exit status: 0, 1 when the library rejects the file (the reason on
 * stderr), 2 for a usage or I/O error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vdsokit.h"
#include "images/elf_names.h" /* readelf's spelling, shared with vdsokit inspect */

/*
 * The System V ELF hash, written here from the gABI's definition rather
 * than taken from the library, so that a wrong vd_hash in the library's
 * view (or a wrong hash function) shows up as a mismatch.
 */
static uint32_t independent_elf_hash(const char *name)
{
	uint32_t h = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h = (h << 4) + *p;
		uint32_t high = h & 0xf0000000u;
		if (high)
			h ^= high >> 24;
		h &= ~high;
	}
	return h;
}

static int dump(const struct vdsokit_image *img)
{
	char flags[64] = "";
	static const struct { unsigned bit; const char *name; } flag_names[] = {
		{ VDSOKIT_IMAGE_HAS_SYSV_HASH, "HASH" },
		{ VDSOKIT_IMAGE_HAS_GNU_HASH, "GNU_HASH" },
		{ VDSOKIT_IMAGE_HAS_VERSYM, "VERSYM" },
		{ VDSOKIT_IMAGE_HAS_VERDEF, "VERDEF" },
	};
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (img->flags & flag_names[i].bit)
			snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags), "%s%s",
				 flags[0] ? "," : "", flag_names[i].name);

	char build_id[2 * 64 + 1] = "-";
	if (img->build_id && img->build_id_size && img->build_id_size <= 64)
		for (size_t i = 0; i < img->build_id_size; i++)
			snprintf(build_id + 2 * i, 3, "%02x", img->build_id[i]);

	printf("header ELF%u %s %u %u %s %s\n", img->elf_class,
	       img->big_endian ? "big" : "little", img->machine, img->hash_entry_size,
	       flags[0] ? flags : "-", build_id);
	printf("count symbols %" PRIu32 " verdefs %" PRIu32 "\n", img->symbol_count,
	       img->verdef_count);

	int status = 0;
	int value_digits = img->elf_class == 64 ? 16 : 8;
	for (uint32_t i = 0; i < img->symbol_count; i++) {
		struct vdsokit_symbol sym;
		int err = vdsokit_image_symbol(img, i, &sym);
		if (err) {
			printf("sym %" PRIu32 " error %d\n", i, err);
			status = 1;
			continue;
		}
		char tbuf[32], bbuf[32], nbuf[32];
		printf("sym %" PRIu32 " %0*" PRIx64 " %" PRIu64 " %s %s %s %s %s", i, value_digits,
		       sym.value, sym.size, elf_type_name(sym.type, img->machine, tbuf, sizeof(tbuf)),
		       elf_bind_name(sym.bind, bbuf, sizeof(bbuf)), elf_visibility_name(sym.visibility),
		       elf_section_name(sym.shndx, nbuf, sizeof(nbuf)), sym.name ? sym.name : "<null>");
		/* readelf names a version for indexes above 1 (0 local, 1 global). */
		if (sym.version_index > 1)
			printf("%s%s", sym.version_hidden ? "@" : "@@",
			       sym.version ? sym.version : "<null>");
		printf("\n");
	}

	for (uint32_t i = 0; i < img->verdef_count; i++) {
		struct vdsokit_verdef def;
		int err = vdsokit_image_verdef(img, i, &def);
		if (err) {
			printf("verdef error %d\n", err);
			status = 1;
			continue;
		}
		char flag_buf[64];
		const char *fbuf = elf_verdef_flag_names(def.flags, flag_buf, sizeof(flag_buf));
		const char *name = def.name ? def.name : "<null>";
		uint32_t want = def.name ? independent_elf_hash(def.name) : 0;
		printf("verdef %u %s %u %s ", def.index, fbuf, def.aux_count, name);
		if (def.hash == want)
			printf("hash-ok\n");
		else
			printf("hash-mismatch:0x%08" PRIx32 "!=0x%08" PRIx32 "\n", def.hash, want);
		if (def.parent)
			printf("parent %u %s\n", def.index, def.parent);
	}
	return status;
}

static int lookups(const struct vdsokit_image *img)
{
	char line[1024];

	while (fgets(line, sizeof(line), stdin)) {
		char name[512], version[512];
		if (sscanf(line, "%511s %511s", name, version) != 2)
			continue;
		struct vdsokit_symbol sym;
		int err = vdsokit_image_lookup(img, name, strcmp(version, "-") ? version : NULL, &sym);
		if (err == 0)
			printf("%s %s found %0*" PRIx64 "\n", name, version,
			       img->elf_class == 64 ? 16 : 8, sym.value);
		else if (err == -ENOENT)
			printf("%s %s absent\n", name, version);
		else
			printf("%s %s error %d\n", name, version, err);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--elf-hash") == 0) {
		for (int i = 2; i < argc; i++)
			printf("%s %" PRIu32 "\n", argv[i], independent_elf_hash(argv[i]));
		return 0;
	}
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--lookup") != 0)) {
		fprintf(stderr, "usage: imgdump FILE [--lookup] | imgdump --elf-hash STRING...\n");
		return 2;
	}

	const char *path = argv[1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "imgdump: %s: %s\n", path, strerror(errno));
		return 2;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		fprintf(stderr, "imgdump: %s: empty or unreadable\n", path);
		close(fd);
		return 2;
	}
	/* Mapped, not read: a parser overrun past the end then faults. */
	void *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (data == MAP_FAILED) {
		fprintf(stderr, "imgdump: %s: mmap: %s\n", path, strerror(errno));
		return 2;
	}

	struct vdsokit_image img;
	int err = vdsokit_image_parse(&img, data, (size_t)st.st_size);
	if (err) {
		fprintf(stderr, "imgdump: %s: %s\n", path, vdsokit_image_strerror(err));
		return 1;
	}
	return argc == 3 ? lookups(&img) : dump(&img);
}
