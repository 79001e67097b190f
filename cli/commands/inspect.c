/* SPDX-License-Identifier: MIT */
/*
 * vdsokit inspect FILE: the inventory of a vDSO image file of any
 * architecture (dumped from another machine, or arch/.../vdso*.so from a
 * kernel build), read with the library's own parser.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "images/images.h"

static const char usage[] =
	"Usage: vdsokit inspect FILE [--json]\n"
	"\n"
	"Shows what libvdsokit's parser finds in the vDSO image FILE, of any\n"
	"architecture and byte order: ELF class, machine, byte order, build-id,\n"
	"hash tables, version definitions and every dynamic symbol (readelf's\n"
	"spelling: compare with `readelf --dyn-syms -V FILE`).  FILE may be `-`\n"
	"for stdin.  A file the parser rejects (not ELF, truncated, ...) is an\n"
	"input error: the reason on stderr, exit status 2.\n"
	"\n"
	"Options:\n"
	"  --json      JSON on stdout (docs/json.md, schema vdsokit-inspect)\n"
	"  -h, --help  this help\n";

/* vDSOs are a few pages; kernel build products with debug info a few MiB. */
#define MAX_IMAGE_SIZE (256u << 20)

int cmd_inspect(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	int c;
	while ((c = cli_getopt(argc, argv, "h", longopts)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h': fputs(usage, stdout); return CLI_EXIT_OK;
		default: return CLI_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return cli_usage_error("inspect", "no FILE given");
	if (optind + 1 < argc)
		return cli_usage_error("inspect", "one FILE at a time ('%s' is extra)", argv[optind + 1]);

	const char *path = argv[optind];
	size_t size;
	unsigned char *data;
	if (strcmp(path, "-") == 0) {
		/* stdin: whatever the caller pipes in, up to the same limit. */
		int err;
		data = cli_read_file(path, MAX_IMAGE_SIZE, &size, &err);
		if (!data)
			return cli_error("inspect", path, "%s",
					 cli_read_error(path, err, "larger than 256 MiB, not a vDSO"));
	} else if (image_file_read("inspect", path, MAX_IMAGE_SIZE, &data, &size) != 0) {
		return CLI_EXIT_USAGE;
	}

	/* A file too short for a header is "truncated" only when it starts as ELF does. */
	size_t magic = size < SELFMAG ? size : SELFMAG;
	if (size == 0 || memcmp(data, ELFMAG, magic) != 0) {
		cli_error("inspect", path, "not an ELF file (%s)",
			  size == 0 ? "empty" : "no \\x7fELF magic at its start");
		free(data);
		return CLI_EXIT_USAGE;
	}

	struct vdsokit_image img;
	int parse_error = vdsokit_image_parse(&img, data, size);
	if (parse_error) {
		/* Say how much there was when it is about size. */
		if (parse_error == VDSOKIT_IMAGE_TRUNCATED)
			cli_error("inspect", path, "%s; the file has %zu bytes",
				  vdsokit_image_strerror(parse_error), size);
		else
			cli_error("inspect", path, "%s", vdsokit_image_strerror(parse_error));
		free(data);
		return CLI_EXIT_USAGE;
	}

	/*
	 * The parser reads what is there, so a cut file still has an inventory;
	 * but its code is gone, and a reader must not take it for the image.
	 */
	uint64_t span;
	bool have_span = image_load_span(data, size, &span);
	bool short_file = have_span && span > size;
	char warning[160] = "";
	if (short_file) {
		snprintf(warning, sizeof(warning),
			 "the file is %zu bytes while its PT_LOAD segments span %llu: "
			 "truncated, the code past byte %zu is missing",
			 size, (unsigned long long)span, size);
		fflush(stdout);
		cli_warning("inspect", "%s: %s", text_shown(path), warning);
	}
	if (json) {
		struct json_writer w;
		json_document_begin(&w, stdout, "inspect");
		json_kv_string(&w, "file", path);
		json_kv_uint(&w, "file_size", size);
		json_key(&w, "load_span");
		if (have_span)
			json_uint(&w, span);
		else
			json_null(&w);
		json_key(&w, "warnings");
		json_array_begin(&w);
		if (short_file)
			json_string(&w, warning);
		json_array_end(&w);
		image_print_json(&w, &img);
		json_document_end(&w);
	} else {
		fputs("file:         ", stdout);
		text_write(stdout, path, TEXT_TERMINAL);
		printf(" (%zu bytes)\n", size);
		if (short_file)
			printf("warning:      %s\n", warning);
		image_print_text(stdout, &img);
	}
	free(data);
	return CLI_EXIT_OK;
}
