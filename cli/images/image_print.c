/* SPDX-License-Identifier: MIT */
/*
 * The inventory of one vDSO image, as text and JSON.  Names follow
 * readelf's spelling (FUNC, GLOBAL, UND, name@@VERSION) so the two can be
 * compared by eye and by the tests.
 */
#include <string.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "images/images.h"
#include "elf_names.h"

static void build_id_hex(const struct vdsokit_image *img, char *buf, size_t size)
{
	buf[0] = 0;
	for (size_t i = 0; img->build_id && i < img->build_id_size && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", img->build_id[i]);
}

static const char *machine_label(const struct vdsokit_image *img)
{
	const char *name = vdsokit_machine_name(img->machine, img->elf_class);
	return name ? name : "unknown machine";
}

/* The image's version needs: static (20 KiB), read by one printer at a time. */
static const struct image_verneeds *read_needs(const struct vdsokit_image *img, bool *malformed)
{
	static struct image_verneeds needs;
	*malformed = image_verneed_read(img, &needs) != 0;
	return &needs;
}

/*
 * readelf's name for a symbol: name@@VERSION or name@VERSION for a version
 * this image defines, name@VERSION for one it needs from a library (the
 * parser knows only the definitions: a needed index comes back unnamed).
 */
static const char *symbol_name(const struct vdsokit_symbol *sym, const struct image_verneeds *needs,
			       char *buf, size_t size, const struct image_verneed **need)
{
	*need = NULL;
	if (!sym->version && sym->version_index > 1)
		*need = image_verneed_find(needs, sym->version_index);
	if (*need) {
		snprintf(buf, size, "%s@%s", sym->name ? sym->name : "", (*need)->name);
		return buf;
	}
	return elf_versioned_name(sym, buf, size);
}

void image_print_text(FILE *out, const struct vdsokit_image *img)
{
	char a[32], b[32], c[32], name[512];
	char id[2 * 64 + 1];

	fprintf(out, "ELF:          ELF%u, %s-endian, %s (e_machine %u), e_flags 0x%llx\n",
		img->elf_class, img->big_endian ? "big" : "little", machine_label(img),
		img->machine, (unsigned long long)img->e_flags);
	fprintf(out, "size:         %zu bytes\n", img->size);
	build_id_hex(img, id, sizeof(id));
	fprintf(out, "build-id:     %s\n", id[0] ? id : "none");
	fprintf(out, "hash tables: ");
	if (img->flags & VDSOKIT_IMAGE_HAS_SYSV_HASH)
		fprintf(out, " DT_HASH (%u buckets, %u chains, %u-byte entries)", img->hash_nbucket,
			img->hash_nchain, img->hash_entry_size);
	if (img->flags & VDSOKIT_IMAGE_HAS_GNU_HASH)
		fprintf(out, "%s DT_GNU_HASH (%u buckets, symoffset %u, %u bloom words, shift %u)",
			img->flags & VDSOKIT_IMAGE_HAS_SYSV_HASH ? "," : "", img->gnu_nbucket,
			img->gnu_symoffset, img->gnu_bloom_size, img->gnu_bloom_shift);
	fputc('\n', out);
	bool needs_malformed;
	const struct image_verneeds *needs = read_needs(img, &needs_malformed);
	fprintf(out, "versions:     %s, %u definitions",
		img->flags & VDSOKIT_IMAGE_HAS_VERSYM ? "DT_VERSYM" : "no DT_VERSYM", img->verdef_count);
	if (needs_malformed)
		fprintf(out, ", DT_VERNEED malformed: versions of undefined symbols not shown");
	else if (needs->present)
		fprintf(out, ", %u needed from %u %s", needs->count + needs->dropped, needs->files,
			needs->files == 1 ? "library" : "libraries");
	fputc('\n', out);

	if (img->verdef_count) {
		static const char *const headers[] = { "index", "flags", "hash", "name", "parent" };
		static const enum table_align align[] = { TABLE_RIGHT, TABLE_LEFT, TABLE_LEFT,
							  TABLE_LEFT, TABLE_LEFT };
		struct table t;
		table_init(&t, 5, headers, align);
		for (uint32_t i = 0; i < img->verdef_count; i++) {
			struct vdsokit_verdef def;
			table_row(&t);
			if (vdsokit_image_verdef(img, i, &def) != 0) {
				table_cellf(&t, "#%u", i);
				table_cell(&t, "malformed");
				continue;
			}
			table_cellf(&t, "%u", def.index);
			table_cell(&t, elf_verdef_flag_names(def.flags, a, sizeof(a)));
			table_cellf(&t, "0x%08x", def.hash);
			table_cell(&t, def.name ? def.name : "");
			table_cell(&t, def.parent ? def.parent : "");
		}
		fprintf(out, "\nversion definitions (%u):\n", img->verdef_count);
		table_print(&t, out, "  ");
		table_free(&t);
	}

	if (!needs_malformed && needs->count) {
		static const char *const need_headers[] = { "index", "flags", "hash", "name", "file" };
		static const enum table_align need_align[] = { TABLE_RIGHT, TABLE_LEFT, TABLE_LEFT,
							       TABLE_LEFT, TABLE_LEFT };
		struct table t;
		table_init(&t, 5, need_headers, need_align);
		for (unsigned i = 0; i < needs->count; i++) {
			const struct image_verneed *v = &needs->items[i];
			table_row(&t);
			table_cellf(&t, "%u", v->index);
			table_cell(&t, elf_verdef_flag_names(v->flags, a, sizeof(a)));
			table_cellf(&t, "0x%08x", v->hash);
			table_cell(&t, v->name);
			table_cell(&t, v->file);
		}
		fprintf(out, "\nversion needs (%u", needs->count);
		if (needs->dropped)
			fprintf(out, "; %u more not shown", needs->dropped);
		fprintf(out, "):\n");
		table_print(&t, out, "  ");
		table_free(&t);
	}

	static const char *const headers[] = { "num", "value", "size", "type", "bind", "vis",
					       "ndx", "name" };
	static const enum table_align align[] = { TABLE_RIGHT, TABLE_LEFT, TABLE_RIGHT,
						  TABLE_LEFT, TABLE_LEFT, TABLE_LEFT,
						  TABLE_RIGHT, TABLE_LEFT };
	struct table t;
	int digits = img->elf_class == 64 ? 16 : 8;
	table_init(&t, 8, headers, align);
	for (uint32_t i = 0; i < img->symbol_count; i++) {
		struct vdsokit_symbol sym;
		table_row(&t);
		table_cellf(&t, "%u", i);
		if (vdsokit_image_symbol(img, i, &sym) != 0) {
			table_cell(&t, "malformed");
			continue;
		}
		table_cellf(&t, "%0*llx", digits, (unsigned long long)sym.value);
		table_cellf(&t, "%llu", (unsigned long long)sym.size);
		table_cell(&t, elf_type_name(sym.type, img->machine, a, sizeof(a)));
		table_cell(&t, elf_bind_name(sym.bind, b, sizeof(b)));
		table_cell(&t, elf_visibility_name(sym.visibility));
		table_cell(&t, elf_section_name(sym.shndx, c, sizeof(c)));
		const struct image_verneed *need;
		table_cell(&t, symbol_name(&sym, needs, name, sizeof(name), &need));
	}
	fprintf(out, "\ndynamic symbols (%u):\n", img->symbol_count);
	table_print(&t, out, "  ");
	table_free(&t);
}

void image_print_json(struct json_writer *w, const struct vdsokit_image *img)
{
	char buf[32], name[512];
	char id[2 * 64 + 1];

	json_key(w, "elf");
	json_object_begin(w);
	json_kv_int(w, "class", img->elf_class);
	json_kv_string(w, "byte_order", img->big_endian ? "big" : "little");
	json_kv_int(w, "machine", img->machine);
	json_kv_string(w, "machine_name", vdsokit_machine_name(img->machine, img->elf_class));
	json_kv_hex(w, "e_flags", img->e_flags);
	json_kv_uint(w, "size", img->size);
	json_object_end(w);

	build_id_hex(img, id, sizeof(id));
	json_kv_string(w, "build_id", id[0] ? id : NULL);

	json_key(w, "hash_tables");
	json_object_begin(w);
	json_key(w, "sysv");
	if (img->flags & VDSOKIT_IMAGE_HAS_SYSV_HASH) {
		json_object_begin(w);
		json_kv_uint(w, "buckets", img->hash_nbucket);
		json_kv_uint(w, "chains", img->hash_nchain);
		json_kv_uint(w, "entry_size", img->hash_entry_size);
		json_object_end(w);
	} else {
		json_null(w);
	}
	json_key(w, "gnu");
	if (img->flags & VDSOKIT_IMAGE_HAS_GNU_HASH) {
		json_object_begin(w);
		json_kv_uint(w, "buckets", img->gnu_nbucket);
		json_kv_uint(w, "symoffset", img->gnu_symoffset);
		json_kv_uint(w, "bloom_words", img->gnu_bloom_size);
		json_kv_uint(w, "bloom_shift", img->gnu_bloom_shift);
		json_object_end(w);
	} else {
		json_null(w);
	}
	json_object_end(w);
	json_kv_bool(w, "versym", img->flags & VDSOKIT_IMAGE_HAS_VERSYM);

	bool needs_malformed;
	const struct image_verneeds *needs = read_needs(img, &needs_malformed);
	json_key(w, "version_needs");
	if (needs_malformed) {
		json_null(w);
		json_kv_string(w, "version_needs_error", "DT_VERNEED malformed: versions of "
			       "undefined symbols not shown");
	} else {
		json_array_begin(w);
		for (unsigned i = 0; i < needs->count; i++) {
			const struct image_verneed *v = &needs->items[i];
			json_object_begin(w);
			json_kv_uint(w, "index", v->index);
			json_kv_uint(w, "flags", v->flags);
			json_kv_hex(w, "hash", v->hash);
			json_kv_string(w, "name", v->name);
			json_kv_string(w, "file", v->file);
			json_object_end(w);
		}
		json_array_end(w);
		if (needs->dropped)
			json_kv_uint(w, "version_needs_not_shown", needs->dropped);
	}

	json_key(w, "version_definitions");
	json_array_begin(w);
	for (uint32_t i = 0; i < img->verdef_count; i++) {
		struct vdsokit_verdef def;
		json_object_begin(w);
		if (vdsokit_image_verdef(img, i, &def) != 0) {
			json_kv_bool(w, "malformed", true);
			json_object_end(w);
			continue;
		}
		json_kv_uint(w, "index", def.index);
		json_kv_uint(w, "flags", def.flags);
		json_kv_string(w, "flag_names", elf_verdef_flag_names(def.flags, buf, sizeof(buf)));
		json_kv_hex(w, "hash", def.hash);
		json_kv_uint(w, "aux_count", def.aux_count);
		json_kv_string(w, "name", def.name);
		json_kv_string(w, "parent", def.parent);
		json_object_end(w);
	}
	json_array_end(w);

	json_key(w, "symbols");
	json_array_begin(w);
	for (uint32_t i = 0; i < img->symbol_count; i++) {
		struct vdsokit_symbol sym;
		json_object_begin(w);
		json_kv_uint(w, "index", i);
		if (vdsokit_image_symbol(img, i, &sym) != 0) {
			json_kv_bool(w, "malformed", true);
			json_object_end(w);
			continue;
		}
		const struct image_verneed *need;
		symbol_name(&sym, needs, name, sizeof(name), &need);
		json_kv_string(w, "name", sym.name ? sym.name : "");
		json_kv_string(w, "version", need ? need->name : sym.version);
		if (need)
			json_kv_string(w, "version_file", need->file);
		json_kv_int(w, "version_index", sym.version_index);
		json_kv_bool(w, "version_hidden", sym.version_hidden);
		json_kv_string(w, "versioned_name", name);
		json_kv_hex(w, "value", sym.value);
		json_kv_uint(w, "size", sym.size);
		json_kv_hex(w, "offset", sym.offset);
		json_kv_string(w, "type", elf_type_name(sym.type, img->machine, buf, sizeof(buf)));
		json_kv_string(w, "bind", elf_bind_name(sym.bind, buf, sizeof(buf)));
		json_kv_string(w, "visibility", elf_visibility_name(sym.visibility));
		json_kv_string(w, "ndx", elf_section_name(sym.shndx, buf, sizeof(buf)));
		json_object_end(w);
	}
	json_array_end(w);
}
