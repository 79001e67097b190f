/* SPDX-License-Identifier: MIT */
/*
 * Aligned text tables (and the same rows as Markdown): cells are collected
 * first, then each column is as wide as its widest cell.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"

void table_init(struct table *t, unsigned columns, const char *const *headers,
		const enum table_align *align)
{
	memset(t, 0, sizeof(*t));
	if (columns > TABLE_MAX_COLUMNS)
		columns = TABLE_MAX_COLUMNS;
	t->columns = columns;
	for (unsigned c = 0; c < columns; c++) {
		t->headers[c] = headers[c];
		t->align[c] = align ? align[c] : (c == 0 ? TABLE_LEFT : TABLE_RIGHT);
	}
	t->current_column = columns;
}

static void die_out_of_memory(void)
{
	fprintf(stderr, "%s: out of memory\n", CLI_PROGRAM);
	exit(CLI_EXIT_USAGE);
}

void table_row(struct table *t)
{
	/* Pad an unfinished row, so every row has all its cells. */
	while (t->rows && t->current_column < t->columns)
		table_cell(t, "");
	if (t->rows == t->capacity) {
		unsigned grown = t->capacity ? t->capacity * 2 : 32;
		char **cells = realloc(t->cells, (size_t)grown * t->columns * sizeof(*cells));
		if (!cells)
			die_out_of_memory();
		t->cells = cells;
		t->capacity = grown;
	}
	for (unsigned c = 0; c < t->columns; c++)
		t->cells[(size_t)t->rows * t->columns + c] = NULL;
	t->rows++;
	t->current_column = 0;
}

/*
 * gcc 12's -fanalyzer loses track of a pointer once it is stored into a
 * heap array and reports the copy as leaked; table_free() frees every
 * cell (tests/hardening/valgrind.t runs the tables under memcheck).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
void table_cell(struct table *t, const char *text)
{
	if (t->rows == 0 || t->current_column >= t->columns)
		return;
	char *copy = strdup(text ? text : "");
	if (!copy)
		die_out_of_memory();
	t->cells[(size_t)(t->rows - 1) * t->columns + t->current_column++] = copy;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

void table_cellf(struct table *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	table_cell(t, buf);
}

static const char *cell_at(const struct table *t, unsigned row, unsigned column)
{
	const char *s = t->cells[(size_t)row * t->columns + column];
	return s ? s : "";
}

/* Characters on screen, as text_write() shows the cell. */
static size_t display_width(const char *s)
{
	return text_width(s, TEXT_TERMINAL);
}

static void print_padded(FILE *out, const char *s, size_t width, enum table_align align)
{
	size_t pad = width - display_width(s);
	if (align == TABLE_RIGHT)
		fprintf(out, "%*s", (int)pad, "");
	text_write(out, s, TEXT_TERMINAL);
	if (align != TABLE_RIGHT)
		fprintf(out, "%*s", (int)pad, "");
}

void table_print(const struct table *t, FILE *out, const char *indent)
{
	size_t width[TABLE_MAX_COLUMNS];
	for (unsigned c = 0; c < t->columns; c++) {
		width[c] = display_width(t->headers[c]);
		for (unsigned r = 0; r < t->rows; r++) {
			size_t w = display_width(cell_at(t, r, c));
			if (w > width[c])
				width[c] = w;
		}
	}
	for (int header = 1; header >= 0; header--) {
		for (unsigned r = 0; r < (header ? 1u : t->rows); r++) {
			/* Built in memory first, to drop the blanks an empty last cell leaves. */
			char *line = NULL;
			size_t length = 0;
			FILE *mem = open_memstream(&line, &length);
			if (!mem)
				die_out_of_memory();
			fputs(indent ? indent : "", mem);
			for (unsigned c = 0; c < t->columns; c++) {
				const char *s = header ? t->headers[c] : cell_at(t, r, c);
				print_padded(mem, s, width[c], t->align[c]);
				if (c + 1 < t->columns)
					fputs("  ", mem);
			}
			fclose(mem);
			while (length && line[length - 1] == ' ')
				line[--length] = 0;
			fprintf(out, "%s\n", line);
			free(line);
		}
	}
}

static void print_markdown_cell(FILE *out, const char *s)
{
	fputs(" ", out);
	text_write(out, s, TEXT_MARKDOWN);
	fputs(" |", out);
}

void table_print_markdown(const struct table *t, FILE *out)
{
	fputs("|", out);
	for (unsigned c = 0; c < t->columns; c++)
		print_markdown_cell(out, t->headers[c]);
	fputs("\n|", out);
	for (unsigned c = 0; c < t->columns; c++)
		fputs(t->align[c] == TABLE_RIGHT ? "---:|" : ":---|", out);
	fputc('\n', out);
	for (unsigned r = 0; r < t->rows; r++) {
		fputs("|", out);
		for (unsigned c = 0; c < t->columns; c++)
			print_markdown_cell(out, cell_at(t, r, c));
		fputc('\n', out);
	}
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < (size_t)t->rows * t->columns; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->rows = t->capacity = 0;
}
