/* SPDX-License-Identifier: MIT */
/*
 * ELF values in readelf's spelling (FUNC, GLOBAL, UND, name@@VERSION), for
 * everything that prints an image so it can be compared with readelf:
 * `vdsokit info`/`inspect` and the tests' imgdump.
 */
#ifndef VDSOKIT_ELF_NAMES_H
#define VDSOKIT_ELF_NAMES_H

#include <stddef.h>

struct vdsokit_symbol;

/* Each returns a constant string or buf, filled for values without a name. */
const char *elf_type_name(unsigned type, unsigned machine, char *buf, size_t size);
const char *elf_bind_name(unsigned bind, char *buf, size_t size);
const char *elf_visibility_name(unsigned visibility);
const char *elf_section_name(unsigned shndx, char *buf, size_t size);
const char *elf_verdef_flag_names(unsigned flags, char *buf, size_t size);
/* name, name@@VERSION (the default version) or name@VERSION (hidden). */
const char *elf_versioned_name(const struct vdsokit_symbol *sym, char *buf, size_t size);

#endif
