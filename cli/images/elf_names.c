// SPDX-License-Identifier: MIT
/* ELF values in readelf's spelling: see elf_names.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vdsokit.h"
#include "elf_names.h"

/* e_machine values of SPARC, whose ABI defines STT_SPARC_REGISTER (13). */
static bool is_sparc(unsigned machine)
{
	return machine == 2 || machine == 18 || machine == 43;
}

const char *elf_type_name(unsigned type, unsigned machine, char *buf, size_t size)
{
	static const char *const names[] = { "NOTYPE", "OBJECT", "FUNC", "SECTION",
					     "FILE", "COMMON", "TLS" };
	if (type < sizeof(names) / sizeof(names[0]))
		return names[type];
	if (type == 10)
		return "IFUNC";
	if (type == 13 && is_sparc(machine))
		return "REGISTER";
	snprintf(buf, size, "<type %u>", type);
	return buf;
}

const char *elf_bind_name(unsigned bind, char *buf, size_t size)
{
	static const char *const names[] = { "LOCAL", "GLOBAL", "WEAK" };
	if (bind < sizeof(names) / sizeof(names[0]))
		return names[bind];
	if (bind == 10)
		return "UNIQUE";
	snprintf(buf, size, "<bind %u>", bind);
	return buf;
}

const char *elf_visibility_name(unsigned visibility)
{
	static const char *const names[] = { "DEFAULT", "INTERNAL", "HIDDEN", "PROTECTED" };
	return names[visibility & 3];
}

const char *elf_section_name(unsigned shndx, char *buf, size_t size)
{
	if (shndx == 0)
		return "UND";
	if (shndx == 0xfff1)
		return "ABS";
	if (shndx == 0xfff2)
		return "COM";
	snprintf(buf, size, "%u", shndx);
	return buf;
}

const char *elf_verdef_flag_names(unsigned flags, char *buf, size_t size)
{
	if (flags == 0)
		return "none";
	snprintf(buf, size, "%s%s%s", flags & 1 ? "BASE" : "",
		 (flags & 3) == 3 ? "|" : "", flags & 2 ? "WEAK" : "");
	if (flags & ~3u)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s0x%x", flags & 3 ? "|" : "",
			 flags & ~3u);
	return buf;
}

/*
 * name, name@@VERSION (the default) or name@VERSION (hidden), as readelf
 * prints them: a version only for indexes above 1 (0 local, 1 global), and
 * none for the symbol that names its own version (LINUX_2.6, ABS).
 */
const char *elf_versioned_name(const struct vdsokit_symbol *sym, char *buf, size_t size)
{
	const char *name = sym->name ? sym->name : "";
	if (!sym->version || sym->version_index <= 1 || strcmp(name, sym->version) == 0)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%s%s%s", name, sym->version_hidden ? "@" : "@@", sym->version);
	return buf;
}
