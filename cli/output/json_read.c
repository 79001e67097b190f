/* SPDX-License-Identifier: MIT */
/*
 * A small recursive-descent JSON reader, enough for `compare` to read the
 * files `bench --json` wrote (possibly edited by hand, or from another
 * version).  Bounded nesting, no trust in the input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"

#define JSON_READ_MAX_DEPTH 64

/*
 * Decoded strings go one after another into one arena the size of the
 * text: a string never decodes longer than its quoted source, so it always
 * fits, and a file of many short keys costs no allocation per string.
 */
struct reader {
	const char *p, *end, *start;
	char *error;
	size_t error_size;
	int depth;
	char *arena;
	size_t arena_used;
};

static int fail(struct reader *r, const char *what)
{
	if (r->error[0])
		return -1;   /* keep the first, innermost message */
	unsigned line = 1;
	for (const char *q = r->start; q < r->p && q < r->end; q++)
		line += *q == '\n';
	snprintf(r->error, r->error_size, "line %u: %s", line, what);
	return -1;
}

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int parse_value(struct reader *r, struct json_value *v);

/* The arrays of a value and its members; the strings live in the arena. */
static void free_value(struct json_value *v)
{
	if (v->type == JSON_ARRAY || v->type == JSON_OBJECT) {
		for (size_t i = 0; i < v->count; i++)
			free_value(&v->items[i]);
		free(v->items);
		free(v->keys);
	}
	memset(v, 0, sizeof(*v));
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | cp >> 6);
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | cp >> 12);
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | cp >> 18);
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

static int parse_hex4(struct reader *r, unsigned *cp)
{
	if (r->end - r->p < 4)
		return fail(r, "truncated \\u escape");
	*cp = 0;
	for (int i = 0; i < 4; i++) {
		char c = *r->p++;
		*cp <<= 4;
		if (c >= '0' && c <= '9')
			*cp |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*cp |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*cp |= (unsigned)(c - 'A' + 10);
		else
			return fail(r, "bad \\u escape");
	}
	return 0;
}

static int parse_string(struct reader *r, char **out)
{
	r->p++;   /* opening quote */
	const char *scan = r->p;
	while (scan < r->end && *scan != '"') {
		if (*scan == '\\')
			scan++;
		scan++;
	}
	if (scan >= r->end)
		return fail(r, "unterminated string");
	/* Escapes only shrink (\uXXXX: 6 bytes to at most 3, a pair 12 to 4). */
	char *s = r->arena + r->arena_used;
	size_t n = 0;
	while (*r->p != '"') {
		unsigned char c = (unsigned char)*r->p++;
		if (c < 0x20)
			return fail(r, "control character in string");
		if (c != '\\') {
			s[n++] = (char)c;
			continue;
		}
		char e = *r->p++;
		switch (e) {
		case '"': s[n++] = '"'; break;
		case '\\': s[n++] = '\\'; break;
		case '/': s[n++] = '/'; break;
		case 'b': s[n++] = '\b'; break;
		case 'f': s[n++] = '\f'; break;
		case 'n': s[n++] = '\n'; break;
		case 'r': s[n++] = '\r'; break;
		case 't': s[n++] = '\t'; break;
		case 'u': {
			unsigned cp;
			if (parse_hex4(r, &cp))
				return -1;
			if (cp == 0)   /* a C string would end there and cut the label silently */
				return fail(r, "\\u0000 (NUL) in a string: not supported");
			if (cp >= 0xd800 && cp < 0xdc00 && r->end - r->p >= 6 &&
			    r->p[0] == '\\' && r->p[1] == 'u') {
				const char *second = r->p;
				unsigned low;
				r->p += 2;
				if (parse_hex4(r, &low))
					return -1;
				if (low >= 0xdc00 && low < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
				else
					r->p = second;   /* not a pair: read it on its own next */
			}
			/* A lone surrogate is no character: U+FFFD, as UTF-8 requires. */
			put_utf8(s, &n, cp >= 0xd800 && cp < 0xe000 ? 0xfffd : cp);
			break;
		}
		default:
			return fail(r, "bad escape in string");
		}
	}
	r->p++;   /* closing quote */
	s[n] = 0;
	r->arena_used += n + 1;
	*out = s;
	return 0;
}

static int parse_number(struct reader *r, struct json_value *v)
{
	char buf[64];
	size_t n = 0;
	while (r->p < r->end && n < sizeof(buf) - 1 &&
	       strchr("+-0123456789.eE", *r->p))
		buf[n++] = *r->p++;
	buf[n] = 0;
	char *endp;
	double d = strtod(buf, &endp);
	if (n == 0 || *endp || !isfinite(d))
		return fail(r, "bad number");
	v->type = JSON_NUMBER;
	v->number = d;
	return 0;
}

static int append_item(struct json_value *v, size_t *capacity)
{
	if (v->count < *capacity)
		return 0;
	size_t grown = *capacity ? *capacity * 2 : 8;
	struct json_value *items = realloc(v->items, grown * sizeof(*items));
	if (!items)
		return -1;
	v->items = items;
	if (v->type == JSON_OBJECT) {
		char **keys = realloc(v->keys, grown * sizeof(*keys));
		if (!keys)
			return -1;
		v->keys = keys;
	}
	*capacity = grown;
	return 0;
}

/*
 * Small objects are most of a bench file: without this, each keeps the
 * slack of its last doubling, and a 30 MB file took 25 times its size.
 */
static void shrink_to_fit(struct json_value *v)
{
	struct json_value *items = realloc(v->items, v->count * sizeof(*items));
	if (items)
		v->items = items;
	if (v->keys) {
		char **keys = realloc(v->keys, v->count * sizeof(*keys));
		if (keys)
			v->keys = keys;
	}
}

static int parse_container(struct reader *r, struct json_value *v, bool is_object)
{
	char close = is_object ? '}' : ']';
	size_t capacity = 0;
	v->type = is_object ? JSON_OBJECT : JSON_ARRAY;
	if (++r->depth > JSON_READ_MAX_DEPTH)
		return fail(r, "nested too deeply");
	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		r->depth--;
		return 0;
	}
	for (;;) {
		if (append_item(v, &capacity))
			return fail(r, "out of memory");
		struct json_value *item = &v->items[v->count];
		memset(item, 0, sizeof(*item));
		skip_space(r);
		if (is_object) {
			if (r->p >= r->end || *r->p != '"')
				return fail(r, "expected a key string");
			if (parse_string(r, &v->keys[v->count]))
				return -1;
			skip_space(r);
			if (r->p >= r->end || *r->p != ':')
				return fail(r, "expected ':'");
			r->p++;
		}
		if (parse_value(r, item)) {
			free_value(item);
			return -1;
		}
		v->count++;
		skip_space(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			r->depth--;
			shrink_to_fit(v);
			return 0;
		}
		return fail(r, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static bool take_word(struct reader *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0)
		return false;
	r->p += n;
	return true;
}

static int parse_value(struct reader *r, struct json_value *v)
{
	memset(v, 0, sizeof(*v));
	skip_space(r);
	if (r->p >= r->end)
		return fail(r, "unexpected end of input");
	switch (*r->p) {
	case '{':
		return parse_container(r, v, true);
	case '[':
		return parse_container(r, v, false);
	case '"':
		v->type = JSON_STRING;
		return parse_string(r, &v->string);
	case 't':
	case 'f':
		v->type = JSON_BOOL;
		v->boolean = *r->p == 't';
		if (take_word(r, v->boolean ? "true" : "false"))
			return 0;
		return fail(r, "bad literal");
	case 'n':
		v->type = JSON_NULL;
		if (take_word(r, "null"))
			return 0;
		return fail(r, "bad literal");
	default:
		if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
			return parse_number(r, v);
		return fail(r, "unexpected character");
	}
}

int json_parse(const char *text, size_t length, struct json_document *doc,
	       char *error, size_t error_size)
{
	struct reader r = { text, text + length, text, error, error_size, 0, NULL, 0 };
	memset(doc, 0, sizeof(*doc));
	error[0] = 0;
	r.arena = malloc(length + 1);
	if (!r.arena)
		return fail(&r, "out of memory");
	doc->strings = r.arena;
	if (parse_value(&r, &doc->root)) {
		json_free(doc);
		return -1;
	}
	skip_space(&r);
	if (r.p != r.end) {
		fail(&r, "text after the document");
		json_free(doc);
		return -1;
	}
	return 0;
}

void json_free(struct json_document *doc)
{
	free_value(&doc->root);
	free(doc->strings);
	doc->strings = NULL;
}

const struct json_value *json_get(const struct json_value *v, const char *key)
{
	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->count; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

double json_get_number(const struct json_value *v, const char *key, double fallback)
{
	const struct json_value *m = json_get(v, key);
	return m && m->type == JSON_NUMBER ? m->number : fallback;
}

const char *json_get_string(const struct json_value *v, const char *key)
{
	const struct json_value *m = json_get(v, key);
	return m && m->type == JSON_STRING ? m->string : NULL;
}
