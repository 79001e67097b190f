/* SPDX-License-Identifier: MIT */
/*
 * vdsokit dump: the in-memory vDSO image, byte for byte, to a file that
 * readelf and `vdsokit inspect` read; the way to take a machine's vDSO
 * somewhere else for a look.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"

static const char usage[] =
	"Usage: vdsokit dump [-o FILE]\n"
	"\n"
	"Writes this process's vDSO image to FILE (`-`: stdout), or to stdout when\n"
	"it is not a terminal: as many bytes as its PT_LOAD segments span (the\n"
	"size the parser computed), extended to the section headers when the\n"
	"kernel mapped them too, so that readelf sees the sections.  Exit status 1\n"
	"when there is no usable vDSO to dump.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE  write to FILE (mode 0644 when new), replacing it only\n"
	"                     once the whole image is written where a rename keeps\n"
	"                     its owner, mode and links, else in place (vdsokit(1),\n"
	"                     OUTPUT FILES)\n"
	"  -h, --help         this help\n";

/*
 * The parser's size stops at the last PT_LOAD byte; the kernel's image goes
 * on with the section headers, which readelf wants.  Extend to them only
 * when they lie inside the [vdso] mapping, so nothing unmapped is read.
 */
static size_t dump_size(const struct vdsokit_image *img)
{
	const ElfW(Ehdr) *ehdr = (const ElfW(Ehdr) *)(const void *)img->data;
	struct vdso_mapping maps[16];
	unsigned count = vdso_mappings_read(maps, 16);
	uintptr_t base = (uintptr_t)img->data;

	if (img->size < sizeof(*ehdr) || ehdr->e_shoff == 0 ||
	    ehdr->e_shentsize != sizeof(ElfW(Shdr)) || ehdr->e_shnum == 0)
		return img->size;
	uint64_t end = (uint64_t)ehdr->e_shoff + (uint64_t)ehdr->e_shnum * ehdr->e_shentsize;
	for (unsigned i = 0; i < count; i++) {
		if (strcmp(maps[i].name, "[vdso]") != 0 || base < maps[i].start || base >= maps[i].end)
			continue;
		if (end > img->size && end <= maps[i].end - base)
			return (size_t)end;
	}
	return img->size;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL;
	int c;
	while ((c = cli_getopt(argc, argv, "ho:", longopts)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("dump", "unexpected argument '%s'", argv[optind]);
	if (output && strcmp(output, "-") == 0)
		output = NULL;   /* stdout, by the same rules as without -o */
	if (!output && isatty(STDOUT_FILENO))
		return cli_usage_error("dump", "stdout is a terminal: use -o FILE or a redirection");

	int init_result = vdsokit_init();
	const struct vdsokit_image *img = vdsokit_process_image();
	if (!img) {
		cli_error("dump", NULL, "no usable vDSO in this process (%s)",
			  init_result == -ENOENT ? "none mapped: vdso=0 or an emulator" :
			  init_result ? "the image was rejected" : "none found");
		return CLI_EXIT_FAILED;
	}

	size_t size = dump_size(img);
	if (!output) {
		/* main() checks that stdout took every byte. */
		fwrite(img->data, 1, size, stdout);
		return CLI_EXIT_OK;
	}
	struct cli_output_file file;
	int status = cli_output_open(&file, "dump", output);
	if (status)
		return status;
	fwrite(img->data, 1, size, file.stream);
	return cli_output_commit(&file);
}
