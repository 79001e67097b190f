/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer: pretty-printed (two-space indent) so that a
 * person can read the output and `jq`/`diff` work on it line by line.
 */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"

static void newline_indent(struct json_writer *w)
{
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Separator and indentation before a value or a key. */
static void before_item(struct json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (w->has_items[w->depth])
		fputc(',', w->out);
	w->has_items[w->depth] = true;
	newline_indent(w);
}

static void write_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	text_write(out, s, TEXT_JSON);
	fputc('"', out);
}

static void open_container(struct json_writer *w, char bracket)
{
	before_item(w);
	fputc(bracket, w->out);
	if (w->depth + 1 < JSON_MAX_DEPTH)
		w->depth++;
	w->has_items[w->depth] = false;
}

static void close_container(struct json_writer *w, char bracket)
{
	bool had_items = w->has_items[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had_items)
		newline_indent(w);
	fputc(bracket, w->out);
}

void json_object_begin(struct json_writer *w) { open_container(w, '{'); }
void json_object_end(struct json_writer *w)   { close_container(w, '}'); }
void json_array_begin(struct json_writer *w)  { open_container(w, '['); }
void json_array_end(struct json_writer *w)    { close_container(w, ']'); }

void json_key(struct json_writer *w, const char *key)
{
	before_item(w);
	write_escaped(w->out, key);
	fputs(": ", w->out);
	w->after_key = true;
}

void json_string(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	before_item(w);
	write_escaped(w->out, s);
}

void json_stringf(struct json_writer *w, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_string(w, buf);
}

void json_int(struct json_writer *w, long long v)
{
	before_item(w);
	fprintf(w->out, "%lld", v);
}

void json_uint(struct json_writer *w, unsigned long long v)
{
	before_item(w);
	fprintf(w->out, "%llu", v);
}

void json_double(struct json_writer *w, double v)
{
	if (!isfinite(v)) {
		json_null(w);
		return;
	}
	before_item(w);
	/* Enough digits for sub-ns figures, few enough to stay readable. */
	fprintf(w->out, "%.6g", v);
}

void json_bool(struct json_writer *w, bool v)
{
	before_item(w);
	fputs(v ? "true" : "false", w->out);
}

void json_null(struct json_writer *w)
{
	before_item(w);
	fputs("null", w->out);
}

void json_kv_string(struct json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_string(w, s);
}

void json_kv_int(struct json_writer *w, const char *key, long long v)
{
	json_key(w, key);
	json_int(w, v);
}

void json_kv_uint(struct json_writer *w, const char *key, unsigned long long v)
{
	json_key(w, key);
	json_uint(w, v);
}

void json_kv_double(struct json_writer *w, const char *key, double v)
{
	json_key(w, key);
	json_double(w, v);
}

void json_kv_bool(struct json_writer *w, const char *key, bool v)
{
	json_key(w, key);
	json_bool(w, v);
}

void json_kv_hex(struct json_writer *w, const char *key, unsigned long long v)
{
	json_key(w, key);
	json_stringf(w, "0x%llx", v);
}

void json_document_begin(struct json_writer *w, FILE *out, const char *kind)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	json_object_begin(w);
	json_key(w, "schema");
	json_stringf(w, "vdsokit-%s", kind);
	json_kv_int(w, "schema_version", CLI_JSON_SCHEMA_VERSION);
	json_key(w, "tool");
	json_object_begin(w);
	json_kv_string(w, "name", CLI_PROGRAM);
	json_kv_string(w, "version", VDSOKIT_VERSION_STRING);
	json_object_end(w);
}

void json_document_end(struct json_writer *w)
{
	json_object_end(w);
	fputc('\n', w->out);
}
