/* SPDX-License-Identifier: MIT */
/*
 * The one place where text leaves the tool: every string that may hold
 * bytes from outside (labels from a JSON file, symbol names from an image)
 * goes through text_write() on its way to JSON, SVG/XML, Markdown, a
 * Prometheus label value or a terminal, so that each output is well-formed
 * whatever came in.
 *
 * The input is read as UTF-8, strictly (no overlong forms, no surrogates,
 * nothing above U+10FFFF).  What is not valid UTF-8 becomes U+FFFD, except
 * on a terminal, where the byte is shown as \xNN so a person sees what the
 * file holds.  Control characters (C0, DEL, C1) are escaped or replaced for
 * every target: in JSON as \uXXXX, on a terminal as \xNN or \u00NN, never
 * raw (an image's symbol name must not be able to clear the screen).
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"

static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */

/* Length of the valid UTF-8 sequence at p (and its code point), 0 if invalid. */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp)
{
	unsigned char c = p[0];
	size_t length;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		length = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		length = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		length = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < length; i++) {
		if ((p[i] & 0xc0) != 0x80)   /* also stops at the terminating NUL */
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return length;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* Writes n bytes (out may be NULL: only counting) and returns the columns they take. */
static size_t emit(FILE *out, const char *s, size_t n, size_t columns)
{
	if (out)
		fwrite(s, 1, n, out);
	return columns;
}

static size_t emit_str(FILE *out, const char *s)
{
	return emit(out, s, strlen(s), strlen(s));
}

/* One valid code point (bytes p[0..length)), for target. */
static size_t write_char(FILE *out, const unsigned char *p, size_t length, uint32_t cp,
			 enum text_target target)
{
	char buf[16];
	switch (target) {
	case TEXT_JSON:
		switch (cp) {
		case '"':  return emit_str(out, "\\\"");
		case '\\': return emit_str(out, "\\\\");
		case '\n': return emit_str(out, "\\n");
		case '\r': return emit_str(out, "\\r");
		case '\t': return emit_str(out, "\\t");
		}
		if (is_control(cp)) {
			snprintf(buf, sizeof(buf), "\\u%04x", (unsigned)cp);
			return emit_str(out, buf);
		}
		break;
	case TEXT_XML:
		switch (cp) {
		case '<': return emit_str(out, "&lt;");
		case '>': return emit_str(out, "&gt;");
		case '&': return emit_str(out, "&amp;");
		case '"': return emit_str(out, "&quot;");
		}
		/* XML 1.0 has no way to write C0 controls (not even &#x1b;), nor U+FFFE/FFFF. */
		if (is_control(cp) || cp == 0xfffe || cp == 0xffff)
			return emit(out, replacement, 3, 1);
		break;
	case TEXT_MARKDOWN:
		if (cp == '|')
			return emit_str(out, "\\|");
		/* A line break would end the table row. */
		if (cp == '\n' || cp == '\r' || cp == '\t')
			return emit_str(out, " ");
		if (is_control(cp))
			return emit(out, replacement, 3, 1);
		break;
	case TEXT_PROMETHEUS:
		/* The exposition format's only escapes; a line break would end the sample. */
		switch (cp) {
		case '"':  return emit_str(out, "\\\"");
		case '\\': return emit_str(out, "\\\\");
		case '\n': return emit_str(out, "\\n");
		}
		if (is_control(cp))
			return emit(out, replacement, 3, 1);
		break;
	case TEXT_TERMINAL:
		if (is_control(cp)) {
			snprintf(buf, sizeof(buf), cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
			return emit_str(out, buf);
		}
		break;
	}
	return emit(out, (const char *)p, length, 1);
}

size_t text_write(FILE *out, const char *s, enum text_target target)
{
	size_t columns = 0;
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		uint32_t cp;
		size_t length = utf8_decode(p, &cp);
		if (length) {
			columns += write_char(out, p, length, cp, target);
			p += length;
			continue;
		}
		/* Not UTF-8: one byte at a time. */
		if (target == TEXT_TERMINAL) {
			char buf[8];
			snprintf(buf, sizeof(buf), "\\x%02x", *p);
			columns += emit_str(out, buf);
		} else {
			columns += emit(out, replacement, 3, 1);
		}
		p++;
	}
	return columns;
}

size_t text_width(const char *s, enum text_target target)
{
	return text_write(NULL, s, target);
}

const char *text_shown(const char *s)
{
	/* Each byte takes at most 6 (\u00NN): room for any path open() takes. */
	static char ring[4][6 * PATH_MAX + 1];
	static unsigned next;
	if (!s)
		return NULL;
	char *buf = ring[next++ % 4];
	FILE *f = fmemopen(buf, sizeof(ring[0]), "w");
	if (!f)
		return "(unprintable)";
	text_write(f, s, TEXT_TERMINAL);
	fclose(f);
	buf[sizeof(ring[0]) - 1] = 0;
	return buf;
}
