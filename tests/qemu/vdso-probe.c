/* SPDX-License-Identifier: MIT */
/*
 * vdso-probe — write this process's vDSO image, byte for byte, to stdout.
 *
 * The matrix's own instrument, independent of libvdsokit: it proves the
 * QEMU plumbing end to end and brings each real kernel's vDSO back to the
 * host, where readelf (not our parser) checks it and where it seeds the
 * fuzzer and the inspect tests.
 *
 * The image length is what the ELF header says it covers: the end of the
 * furthest loadable segment or of the section header table, whichever is
 * later (the kernel maps the whole linked file, section headers included,
 * and readelf needs them).  It is capped by the [vdso] mapping size from
 * /proc/self/maps so a strange header cannot make us read past the mapping.
 *
 * stderr: one line "vdso-probe: base 0x... image N bytes mapping M bytes".
 * Exit status: 0 image written, 3 no vDSO (AT_SYSINFO_EHDR is 0), 1 error.
 */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Size of the [vdso] mapping, or 0 when /proc is not available. */
static size_t vdso_mapping_size(void)
{
	char line[512];
	size_t size = 0;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		return 0;
	while (fgets(line, sizeof line, maps)) {
		unsigned long start, end;

		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			size = end - start;
	}
	fclose(maps);
	return size;
}

static int write_all(const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(1, p, n);

		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(void)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	size_t mapping, image = 0;

	if (base == 0) {
		fprintf(stderr, "vdso-probe: no vDSO (AT_SYSINFO_EHDR is 0)\n");
		return 3;
	}
	mapping = vdso_mapping_size();
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
		fprintf(stderr, "vdso-probe: AT_SYSINFO_EHDR %#lx has no ELF magic\n",
			(unsigned long)base);
		return 1;
	}
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		size_t end = ph[i].p_offset + ph[i].p_filesz;

		if (ph[i].p_type == PT_LOAD && end > image)
			image = end;
	}
	if (eh->e_shoff != 0) {
		size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;

		if (end > image)
			image = end;
	}
	if (mapping != 0 && image > mapping) {
		fprintf(stderr, "vdso-probe: headers claim %zu bytes, mapping has %zu; truncating\n",
			image, mapping);
		image = mapping;
	}
	fprintf(stderr, "vdso-probe: base %#lx image %zu bytes mapping %zu bytes\n",
		(unsigned long)base, image, mapping);
	if (image == 0 || write_all((const unsigned char *)base, image) != 0) {
		fprintf(stderr, "vdso-probe: cannot write the image\n");
		return 1;
	}
	return 0;
}
