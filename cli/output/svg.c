/* SPDX-License-Identifier: MIT */
/*
 * Grouped horizontal bar charts on a logarithmic ns axis, as standalone SVG.
 * Horizontal, because the group labels ("clock_gettime(MONOTONIC_COARSE)")
 * are long and there are dozens of groups; logarithmic, because a
 * thread-pointer read (under 1 ns) and a CPU-time syscall (hundreds of ns)
 * belong on the same chart.
 */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "output/output.h"

/* Okabe–Ito colours: distinguishable with the common colour-vision deficiencies. */
static const char *const palette[CHART_MAX_SERIES] = {
	"#0072B2", "#E69F00", "#009E73", "#CC79A7",
	"#56B4E9", "#D55E00", "#999999", "#000000",
};

#define FONT "DejaVu Sans, Verdana, Arial, sans-serif"
#define CHAR_WIDTH 7.0     /* average advance of a 12 px sans-serif glyph */
#define BAR_HEIGHT 13.0
#define GROUP_GAP 10.0
#define PLOT_WIDTH 620.0
#define MARGIN 16.0

static void write_escaped(FILE *out, const char *s)
{
	text_write(out, s, TEXT_XML);
}

static bool measured(double v)
{
	return isfinite(v) && v > 0;
}

static size_t text_chars(const char *s)
{
	return text_width(s, TEXT_XML);
}

/* "1 ns", "10 ns", "100 ns", "1 µs", …: the labels of the decade lines. */
static void decade_label(char *buf, size_t size, int exponent)
{
	static const char *const units[] = { "ns", "µs", "ms", "s" };
	if (exponent < 0) {
		snprintf(buf, size, "%g ns", pow(10, exponent));
		return;
	}
	int unit = exponent / 3;
	if (unit > 3)
		unit = 3;
	snprintf(buf, size, "%g %s", pow(10, exponent - 3 * unit), units[unit]);
}

struct axis {
	int lo_exp, hi_exp;    /* the axis spans 10^lo_exp .. 10^hi_exp ns */
	double x0, width;
};

static double axis_x(const struct axis *a, double v)
{
	double t = (log10(v) - a->lo_exp) / (a->hi_exp - a->lo_exp);
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return a->x0 + t * a->width;
}

static void write_axis_labels(FILE *out, const struct axis *a, double y, bool above)
{
	for (int e = a->lo_exp; e <= a->hi_exp; e++) {
		char label[32];
		decade_label(label, sizeof(label), e);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\""
			" fill=\"#333\">%s</text>\n", axis_x(a, pow(10, e)), y + (above ? -5 : 13), label);
	}
}

int svg_write_bar_chart(FILE *out, const struct bar_chart *c)
{
	double lo = INFINITY, hi = 0;
	size_t label_chars = 0;
	unsigned series = c->series_count > CHART_MAX_SERIES ? CHART_MAX_SERIES : c->series_count;

	for (unsigned g = 0; g < c->group_count; g++) {
		for (unsigned s = 0; s < series; s++) {
			double v = c->values[(size_t)g * c->series_count + s];
			if (!measured(v))
				continue;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		size_t n = text_chars(c->groups[g]);
		if (n > label_chars)
			label_chars = n;
	}
	if (series == 0 || hi == 0)
		return -1;

	struct axis a;
	a.lo_exp = (int)floor(log10(lo));
	a.hi_exp = (int)ceil(log10(hi));
	if (a.hi_exp <= a.lo_exp)
		a.hi_exp = a.lo_exp + 1;
	a.x0 = MARGIN + label_chars * CHAR_WIDTH + 10;
	a.width = PLOT_WIDTH;

	double value_room = 70;   /* "1.23 µs" after the longest bar */
	double width = a.x0 + a.width + value_room + MARGIN;
	double title_h = c->subtitle ? 44 : 28;
	double legend_h = 22;
	double plot_top = MARGIN + title_h + legend_h + 18;
	double group_h = series * BAR_HEIGHT + GROUP_GAP;
	double plot_h = c->group_count * group_h;
	double height = plot_top + plot_h + 18 + 22 + MARGIN;

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\""
		" viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height, width, height, FONT);

	double y = MARGIN + 16;
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"16\" font-weight=\"bold\">",
		MARGIN, y);
	write_escaped(out, c->title);
	fputs("</text>\n", out);
	if (c->subtitle) {
		y += 18;
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#444\">", MARGIN, y);
		write_escaped(out, c->subtitle);
		fputs("</text>\n", out);
	}

	/* Legend: one swatch and name per series, on one line. */
	double lx = a.x0;
	double ly = MARGIN + title_h + 6;
	for (unsigned s = 0; s < series; s++) {
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"%s\"/>\n",
			lx, ly, palette[s]);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">", lx + 19, ly + 10.5);
		write_escaped(out, c->series[s]);
		fputs("</text>\n", out);
		lx += 19 + text_chars(c->series[s]) * CHAR_WIDTH + 22;
	}

	/* Zebra bands, so a label can be followed to its bars. */
	for (unsigned g = 0; g < c->group_count; g++) {
		if (g % 2)
			continue;
		fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f2f4f7\"/>\n",
			MARGIN, plot_top + g * group_h, width - 2 * MARGIN, group_h);
	}

	/* Grid: decades solid, 2× and 5× dotted. */
	for (int e = a.lo_exp; e <= a.hi_exp; e++) {
		for (int m = 1; m <= 5; m += (m == 1 ? 1 : 3)) {
			if (e == a.hi_exp && m > 1)
				break;
			double x = axis_x(&a, m * pow(10, e));
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>\n",
				x, plot_top, x, plot_top + plot_h, m == 1 ? "#999" : "#ccc",
				m == 1 ? "" : " stroke-dasharray=\"2,3\"");
		}
	}
	write_axis_labels(out, &a, plot_top, true);
	write_axis_labels(out, &a, plot_top + plot_h, false);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">",
		a.x0 + a.width / 2, plot_top + plot_h + 34);
	write_escaped(out, c->axis_label ? c->axis_label : "ns per call (log scale)");
	fputs("</text>\n", out);

	for (unsigned g = 0; g < c->group_count; g++) {
		double gy = plot_top + g * group_h + GROUP_GAP / 2;
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">",
			a.x0 - 8, gy + series * BAR_HEIGHT / 2 + 4);
		write_escaped(out, c->groups[g]);
		fputs("</text>\n", out);
		for (unsigned s = 0; s < series; s++) {
			double v = c->values[(size_t)g * c->series_count + s];
			double by = gy + s * BAR_HEIGHT;
			char text[32];
			if (!measured(v)) {
				fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#777\">n/a</text>\n",
					a.x0 + 4, by + BAR_HEIGHT - 3);
				continue;
			}
			double x1 = axis_x(&a, v);
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
				"<title>", a.x0, by + 1, fmax(x1 - a.x0, 1), BAR_HEIGHT - 2, palette[s]);
			write_escaped(out, c->groups[g]);
			fputs(" — ", out);
			write_escaped(out, c->series[s]);
			fprintf(out, ": %s</title></rect>\n", fmt_duration_ns(text, sizeof(text), v));
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#222\">%s</text>\n",
				x1 + 4, by + BAR_HEIGHT - 3, text);
		}
	}
	/* Plot frame on the axis side, over the bars. */
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
		a.x0, plot_top, a.x0, plot_top + plot_h);
	fputs("</svg>\n", out);
	return 0;
}

int svg_write_chart_file(struct cli_output_file *file, const struct bar_chart *chart)
{
	if (svg_write_bar_chart(file->stream, chart) != 0) {
		const char *cmd = file->cmd, *path = file->path;
		cli_output_abort(file);
		return cli_error(cmd, path, "no figures to draw: nothing written");
	}
	return cli_output_commit(file);
}
